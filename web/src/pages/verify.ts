// "Verify the dice": fetches the transcript once the seed is revealed and recomputes the commitment
// and every roll in the browser (fair.ts); each roll is shown with the dice the game used and the
// dice recomputed, matching or not.
import { api } from '../api.js';
import { verifyGame } from '../fair.js';
import { h } from '../ui.js';

export async function verifyPanel(gameId: string, into: HTMLElement): Promise<void> {
  into.replaceChildren(h('p', {}, 'Recomputing every roll in your browser…'));
  const g = await api.history(gameId);
  if (!g.seed || !g.clientSeeds) {
    into.replaceChildren(h('p', {}, 'The seed is not revealed yet (a mirror-pair partner is still playing).'));
    return;
  }
  const report = await verifyGame(g.commit, g.seed, g.clientSeeds, g.history.map((t) => t.dice));
  const bad = report.rolls.filter((r) => !r.ok).length;
  const verdict = report.ok
    ? `Verified: the seed matches the commitment and all ${report.rolls.length} rolls match.`
    : `Verification FAILED: ${report.commitOk ? '' : 'the seed does not match the commitment; '}${bad} of ${report.rolls.length} rolls differ.`;
  into.replaceChildren(
    h('p', { class: `verdict ${report.ok ? 'pass' : 'fail'}`, 'data-verdict': report.ok ? 'pass' : 'fail', role: 'status' }, verdict),
    h('p', {}, 'Client seeds: White ', h('code', {}, g.clientSeeds.white), ', Black ', h('code', {}, g.clientSeeds.black), '.'),
    h('p', {}, 'SHA-256 of the revealed seed: ', h('code', {}, report.computedCommit), report.commitOk ? ' ✓ matches' : ' ✗ differs'),
    h('details', { open: !report.ok },
      h('summary', {}, `Every roll (${report.rolls.length})`),
      h('table', { class: 'rolls' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Roll'), h('th', { scope: 'col' }, 'Game'), h('th', { scope: 'col' }, 'Recomputed'), h('th', { scope: 'col' }, ''))),
        h('tbody', {}, ...report.rolls.map((r) =>
          h('tr', { class: r.ok ? 'ok' : 'bad', 'data-ok': String(r.ok) },
            h('td', {}, String(r.ply)), h('td', {}, r.shown.join(' ')), h('td', {}, r.computed.join(' ')),
            h('td', {}, r.ok ? '✓' : '✗ differs')))))),
  );
}
