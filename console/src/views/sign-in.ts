/**
 * Sign in: through the team's OpenID Connect issuer when the API offers it, or
 * by pasting a bearer token (or following the link `npm start` prints, handled
 * in main.ts). A failed issuer sign-in comes back here as `#error=CODE`.
 */
import { api } from '../api';
import { h, mount } from '../dom';
import { errorState } from '../states';

interface OidcOffer {
  enabled: boolean;
  providerName?: string;
  loginPath?: string;
}

/** What each failure code of the issuer's callback (api/console/oidc-failures.ts) means to the person signing in. */
const OIDC_FAILURES: Record<string, string> = {
  expired: 'The sign-in took too long or was started in another browser. Try again.',
  state_mismatch: 'The answer from the identity provider did not belong to this sign-in (state mismatch). Try again.',
  issuer_error: 'The identity provider refused the sign-in.',
  issuer_unreachable: 'The identity provider could not be reached. Try again later, or tell the operator.',
  token_rejected: 'The identity provider’s answer could not be verified. Tell the operator.',
  claim_missing: 'Your identity provider account lacks a claim the platform needs. Ask an administrator to set it:',
  claim_invalid: 'A claim from your identity provider account has a value the platform cannot use. Ask an administrator to fix it:',
};

export function signInView(main: HTMLElement, submit: (credential: { token: string }) => Promise<void>): void {
  const token = h('textarea', { id: 'token', name: 'token', rows: 4, required: true, autocomplete: 'off', spellcheck: 'false' });
  const problem = h('div', { class: 'problem' });
  const provider = h('div', { class: 'oidc' });
  const form = h(
    'form',
    { class: 'sign-in' },
    h('h1', {}, 'Sign in'),
    provider,
    h(
      'p',
      {},
      'Paste a bearer token (for example from ',
      h('code', {}, 'npm run token'),
      '), or open the one-time sign-in link that ',
      h('code', {}, 'npm start'),
      ' prints. The console keeps your session in an HttpOnly cookie and calls the API with exactly your permissions.',
    ),
    h('label', { for: 'token' }, 'Token'),
    token,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    mount(problem);
    submit({ token: token.value.trim() }).catch((error: unknown) => mount(problem, errorState(error)));
  });
  mount(main, form);
  showOidcFailure(problem);
  void api<OidcOffer>('/console/oidc').then(
    (offer) => {
      if (!offer.enabled || !offer.loginPath) return;
      const returnTo = location.pathname === '/console/sign-in' ? '/console/' : location.pathname + location.search;
      const href = `${offer.loginPath}?${new URLSearchParams({ return_to: returnTo }).toString()}`;
      mount(
        provider,
        h('a', { class: 'button primary', id: 'oidc-sign-in', href }, `Sign in with ${offer.providerName ?? 'single sign-on'}`),
      );
    },
    () => undefined,
  );
}

/** Shows why the issuer's sign-in failed (`#error=CODE&detail=…`), once: the fragment leaves the address bar. */
function showOidcFailure(problem: HTMLElement): void {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const code = fragment.get('error');
  if (code === null) return;
  history.replaceState(null, '', location.pathname + location.search);
  const detail = fragment.get('detail');
  mount(
    problem,
    h(
      'div',
      { class: 'state error', role: 'alert', 'data-oidc-error': code },
      h('strong', {}, 'Not signed in. '),
      OIDC_FAILURES[code] ?? 'The sign-in through the identity provider failed.',
      detail ? ' ' : null,
      detail ? h('code', {}, detail) : null,
    ),
  );
}
