// POST/GET/DELETE /bot/webhook: the verification handshake, and the webhook kept on the bot record.
// The URL policy runs inside the client, on the same resolution the handshake connects to.
import type { Clock } from '../../domain/clock.js';
import type { WebhookRecord } from '../../domain/records.js';
import type { Principal } from '../../domain/types.js';
import { ok } from '../../domain/result.js';
import type { Store } from '../../store/types.js';
import { fail, type ServiceResult } from '../errors.js';
import type { PostResult, WebhookClient } from './client.js';
import { verificationJson } from '../../wire/encode.js';
import { newNonce, newSecret, signatureHeaders } from './signing.js';
import type { DeliveryStats, StatsView } from './stats.js';

const REGISTERED_ONLY = 'only registered bots can hold a webhook';

export interface WebhookInfo {
  url: string;
  verifiedAt: string;
  stats: StatsView;
}

export interface WebhookRegistryDeps {
  store: Store;
  client: WebhookClient;
  clock: Clock;
  stats: DeliveryStats;
  answerCapMs: number;
  /** Writes the bot's webhook (null removes it) in the bot's serial update chain; false if none was there to remove. */
  setWebhook(botId: string, hook: WebhookRecord | null): Promise<boolean>;
}

/** What a failed handshake got, in words for the 422 `detail`. */
function handshakeProblem(res: PostResult, nonce: string, capMs: number): string | null {
  switch (res.kind) {
    case 'blocked':
      return `URL policy: ${res.detail}`;
    case 'unreachable':
      return `handshake: could not connect (${res.detail})`;
    case 'timeout':
      return `handshake: no answer within ${capMs / 1000} s`;
    case 'closed':
      return 'handshake: the server is stopping';
    case 'tooLarge':
      return 'handshake: the answer is over 64 KiB';
    case 'answer': {
      if (res.status !== 200) return `handshake: the endpoint answered HTTP ${res.status}, expected 200`;
      let got: unknown;
      try {
        got = JSON.parse(res.body);
      } catch {
        return 'handshake: the answer is not JSON';
      }
      const echoed = got && typeof got === 'object' ? (got as { nonce?: unknown }).nonce : undefined;
      return echoed === nonce ? null : 'handshake: the answer does not echo the nonce as {"nonce": …}';
    }
  }
}

export class WebhookRegistry {
  constructor(private readonly deps: WebhookRegistryDeps) {}

  async register(p: Principal, url: string): Promise<ServiceResult<{ url: string; secret: string }>> {
    if (p.tier !== 'registered') return fail('registered_only', REGISTERED_ONLY);
    const secret = newSecret();
    const nonce = newNonce();
    const body = verificationJson(nonce);
    const res = await this.deps.client.post(url, body, signatureHeaders(secret, this.deps.clock.now(), body), this.deps.answerCapMs);
    const problem = handshakeProblem(res, nonce, this.deps.answerCapMs);
    if (problem !== null) return res.kind === 'blocked' ? fail('webhook_url_refused', problem) : fail('webhook_handshake_failed', problem);
    await this.deps.setWebhook(p.id, { url, secret, verifiedAt: new Date(this.deps.clock.now()).toISOString() });
    this.deps.stats.reset(p.id);
    return ok({ url, secret });
  }

  info(p: Principal): ServiceResult<WebhookInfo> {
    if (p.tier !== 'registered') return fail('registered_only', REGISTERED_ONLY);
    const hook = this.deps.store.getBot(p.id)?.webhook;
    if (!hook) return fail('no_webhook');
    return ok({ url: hook.url, verifiedAt: hook.verifiedAt, stats: this.deps.stats.view(p.id) });
  }

  async remove(p: Principal): Promise<ServiceResult<null>> {
    if (p.tier !== 'registered') return fail('registered_only', REGISTERED_ONLY);
    if (!(await this.deps.setWebhook(p.id, null))) return fail('no_webhook');
    return ok(null);
  }
}
