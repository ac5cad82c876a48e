// Client-side routes: the server answers every page path with the same shell, and this picks the
// page. Links inside the site navigate without a reload (history API).

type Page = () => void;
let render: (path: string) => Page = () => () => {};
let leave: Page = () => {};

export function startRouter(pick: (path: string) => Page): void {
  render = pick;
  document.addEventListener('click', (e) => {
    const a = (e.target as HTMLElement | null)?.closest('a');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !isPage(url.pathname)) return;
    e.preventDefault();
    navigate(url.pathname);
  });
  window.addEventListener('popstate', () => show(location.pathname));
  show(location.pathname);
}

/** Paths the shell serves. */
export const isPage = (path: string): boolean =>
  path === '/' || path === '/ladder' || path === '/tournaments' || /^\/(game|tournament)\/[^/]+$/.test(path) ||
  /^\/bot\/[^/]+\/[^/]+$/.test(path);

export function navigate(path: string): void {
  history.pushState(null, '', path);
  show(path);
}

function show(path: string): void {
  leave();
  leave = render(path);
  (document.getElementById('main') as HTMLElement).focus({ preventScroll: true });
  window.scrollTo(0, 0);
}
