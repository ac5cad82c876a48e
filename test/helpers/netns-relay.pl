#!/usr/bin/perl
# A user-space stand-in for `tc qdisc ... netem loss P delay D`, for kernels built without sch_netem
# (test/helpers/netns-impair.ts). It makes two tap devices and copies every Ethernet frame from each to
# the other, dropping each with probability LOSS and holding the rest DELAY seconds (in order, per
# direction). The test bridges one tap to the host's link and the other to the test bridge, so the
# host's traffic crosses this process both ways. The taps vanish when it exits.
# usage: netns-relay.pl TAP1 TAP2 LOSS DELAY
use strict;
use warnings;
use Time::HiRes qw(time);

my ($name1, $name2, $loss, $delay) = @ARGV;
die "usage: netns-relay.pl TAP1 TAP2 LOSS DELAY\n" unless defined $delay;

# TUNSETIFF on /dev/net/tun with IFF_TAP | IFF_NO_PI: whole frames, no packet-info prefix.
sub tap {
  my ($name) = @_;
  open(my $fh, '+<', '/dev/net/tun') or die "open /dev/net/tun: $!\n";
  my $ifr = pack('Z16 s x22', $name, 0x0002 | 0x1000);
  ioctl($fh, 0x400454ca, $ifr) or die "TUNSETIFF $name: $!\n";
  return $fh;
}

my @fh = (tap($name1), tap($name2));
$| = 1;
print "ready\n";

# Frames waiting to be written to $fh[k], oldest first: [due time, bytes].
my @queue = ([], []);
for (;;) {
  my $now = time;
  my $wait = 1;
  for my $k (0, 1) {
    my $q = $queue[$k];
    while (@$q && $q->[0][0] <= $now) {
      my $f = shift @$q;
      syswrite($fh[$k], $f->[1]); # a tap whose link is down refuses: the frame is lost, as on a wire
    }
    $wait = $q->[0][0] - $now if @$q && $q->[0][0] - $now < $wait;
  }
  $wait = 0 if $wait < 0;
  my $rin = '';
  vec($rin, fileno($fh[$_]), 1) = 1 for 0, 1;
  my $n = select(my $rout = $rin, undef, undef, $wait);
  next if !defined $n || $n <= 0;
  for my $k (0, 1) {
    next unless vec($rout, fileno($fh[$k]), 1);
    my $got = sysread($fh[$k], my $buf, 65536);
    next unless defined $got && $got > 0;
    next if rand() < $loss;
    push @{ $queue[1 - $k] }, [time + $delay, $buf];
  }
}
