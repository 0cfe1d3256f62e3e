/** Sign in: paste a bearer token (or follow the link `npm start` prints, handled in main.ts). */
import { h, mount } from '../dom';
import { errorState } from '../states';

export function signInView(main: HTMLElement, submit: (credential: { token: string }) => Promise<void>): void {
  const token = h('textarea', { id: 'token', name: 'token', rows: 4, required: true, autocomplete: 'off', spellcheck: 'false' });
  const problem = h('div', { class: 'problem' });
  const form = h(
    'form',
    { class: 'sign-in' },
    h('h1', {}, 'Sign in'),
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
}
