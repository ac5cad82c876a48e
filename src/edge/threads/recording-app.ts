// The app main's router is built on when edge threads serve HTTP: it only records each route (the
// app method, the pattern and the handler). The edge threads register the same routes, in the same
// order, on their real uWS apps, so uWS itself matches every request exactly as it does on one thread;
// a request then names its route by position and main runs that route's handler.
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { RouteKey } from './protocol.js';

export type UwsHandler = (res: HttpResponse, req: HttpRequest) => void;

export interface RecordedRoute {
  readonly key: RouteKey;
  readonly handler: UwsHandler;
}

/** The app methods the router and the web page register routes with. */
const METHODS = ['get', 'post', 'put', 'patch', 'del', 'head', 'options', 'any'] as const;

export class RecordingApp {
  readonly routes: RecordedRoute[] = [];
  /** The recorder, typed as the app the router expects (only route registration is ever called on it). */
  readonly app: TemplatedApp;

  constructor() {
    const app: Record<string, unknown> = {};
    for (const method of METHODS) {
      app[method] = (pattern: string, handler: UwsHandler) => {
        this.routes.push({ key: [method, pattern], handler });
        return app;
      };
    }
    this.app = app as unknown as TemplatedApp;
  }

  keys(): RouteKey[] {
    return this.routes.map((r) => r.key);
  }
}
