/**
 * The console's entry point: signs in from a one-time link (#code=…) when the
 * page carries one, then routes by path under /console without reloading.
 * Each view renders into the main area and may return a clean-up (closing an
 * event stream) that runs when the user navigates away.
 */
import { h, link, mount } from './dom';
import { navigate, setRenderer, type Cleanup, type View } from './nav';
import { can, loadSession, session, signIn, signOut } from './session';
import { errorState } from './states';
import { configView } from './views/config';
import { executionView } from './views/execution';
import { executionsView } from './views/executions';
import { homeView } from './views/home';
import { signInView } from './views/sign-in';
import { triggersView } from './views/triggers';
import { workflowView } from './views/workflow';
import { workflowsView } from './views/workflows';
import { accountView } from './views/account';
import { accountsView } from './views/accounts';
import { specificationView } from './views/specification';
import { specificationsView } from './views/specifications';
import { userView } from './views/user';
import { usersView } from './views/users';
import { apiKeysView } from './views/api-keys';
import { answerView, approvalsView, waitingOnYou } from './views/approvals';

/** The definition editor and the revision diff load CodeMirror: their own chunk, fetched on first use. */
const editor = () => import('./editor/pages');
const editView: View = async (...args) => (await editor()).editView(...args);
const diffView: View = async (...args) => (await editor()).diffView(...args);

const routes: Array<[RegExp, View]> = [
  [/^\/console\/?$/, homeView],
  [/^\/console\/workflows\/?$/, workflowsView],
  [/^\/console\/workflows\/new$/, editView],
  [/^\/console\/workflows\/([^/]+)\/edit$/, editView],
  [/^\/console\/workflows\/([^/]+)\/diff$/, diffView],
  [/^\/console\/workflows\/([^/]+)$/, workflowView],
  [/^\/console\/executions\/?$/, executionsView],
  [/^\/console\/executions\/([^/]+)$/, executionView],
  [/^\/console\/config\/?$/, configView],
  [/^\/console\/admin(?:\/accounts)?\/?$/, accountsView],
  [/^\/console\/admin\/accounts\/([^/]+)$/, accountView],
  [/^\/console\/admin\/users\/?$/, usersView],
  [/^\/console\/admin\/users\/([^/]+)$/, userView],
  [/^\/console\/admin\/api-keys\/?$/, apiKeysView],
  [/^\/console\/admin\/specifications\/?$/, specificationsView],
  [/^\/console\/admin\/specifications\/(service|provider)\/([^/]+)$/, specificationView],
  [/^\/console\/triggers\/?$/, triggersView],
  [/^\/console\/approvals\/?$/, approvalsView],
  [/^\/console\/approvals\/([^/]+)\/([^/]+)$/, answerView],
];

const root = document.getElementById('app')!;
let cleanup: Cleanup | void;
let firstRender = true;

async function render(): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  const main = h('main', { id: 'main' });
  if (!session() || location.pathname === '/console/sign-in') {
    mount(root, header(), main);
    signInView(main, async (credential) => {
      await signIn(credential);
      navigate(location.pathname === '/console/sign-in' ? '/console/' : location.pathname + location.search, true);
    });
    return ready();
  }
  mount(root, header(), main);
  const match = routes.map(([pattern, view]) => [pattern.exec(location.pathname), view] as const).find(([m]) => m);
  if (!match) {
    mount(main, h('h1', {}, 'Not found'), h('p', {}, 'No console page here. ', link('/console/', 'Go home')));
    return ready();
  }
  const [found, view] = match;
  try {
    cleanup = await view(main, found!.slice(1).map(decodeURIComponent), new URLSearchParams(location.search));
  } catch (error) {
    mount(main, errorState(error));
  }
  ready();
}

/** Marks the first complete render for the browser tests' timing. */
function ready(): void {
  root.setAttribute('data-ready', 'true');
  if (firstRender) {
    firstRender = false;
    performance.mark('console-ready');
  }
}

function header(): HTMLElement {
  const who = session();
  return h(
    'header',
    { class: 'top' },
    h('span', { class: 'brand' }, 'Platform console'),
    who
      ? h(
          'nav',
          {},
          link('/console/', 'Home'),
          link('/console/workflows', 'Workflows'),
          link('/console/executions', 'Executions'),
          link('/console/triggers', 'Triggers'),
          link('/console/config', 'Config entries'),
          waitingLink(),
          adminLink(),
        )
      : null,
    who
      ? h(
          'span',
          { class: 'who' },
          `user ${who.userId} · organization ${who.organizationId} `,
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => void signOut().then((issuer) => (issuer ? location.assign(issuer) : navigate('/console/sign-in'))),
            },
            'Sign out',
          ),
        )
      : null,
  );
}

/** "Waiting on you" with the count of waits the user may answer (`data-count` once known). */
function waitingLink(): HTMLElement {
  const count = h('span', { class: 'count' });
  const anchor = link('/console/approvals', 'Waiting on you ', count);
  anchor.classList.add('waiting-on-you');
  void waitingOnYou().then((n) => {
    anchor.setAttribute('data-count', String(n ?? ''));
    count.textContent = n === undefined ? '' : `(${n})`;
  });
  return anchor;
}

/** "Administration", once the permissions say the caller may read the organization's accounts (`data-admin` says when known). */
function adminLink(): HTMLElement {
  const slot = h('span', { class: 'admin-link' });
  void can('account:read').then((may) => {
    slot.setAttribute('data-admin', may ? 'yes' : 'no');
    if (may) slot.append(link('/console/admin', 'Administration'));
  });
  return slot;
}

document.addEventListener('click', (event) => {
  const anchor = (event.target as Element).closest?.('a[data-nav]');
  if (!anchor || event.defaultPrevented || (event as MouseEvent).button !== 0) return;
  const mouse = event as MouseEvent;
  if (mouse.metaKey || mouse.ctrlKey || mouse.shiftKey || mouse.altKey) return;
  event.preventDefault();
  navigate((anchor as HTMLAnchorElement).getAttribute('href')!);
});
window.addEventListener('popstate', () => void render());
setRenderer(render);

async function boot(): Promise<void> {
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  try {
    if (code) {
      // Out of the address bar and history at once: the code is single-use anyway.
      history.replaceState(null, '', location.pathname + location.search);
      await signIn({ code });
    } else {
      await loadSession();
    }
  } catch (error) {
    mount(root, header(), h('main', { id: 'main' }, errorState(error), h('p', {}, link('/console/sign-in', 'Sign in with a token'))));
    return ready();
  }
  await render();
}

void boot();
