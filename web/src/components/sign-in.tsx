/** The signed-out page: the user pool's hosted UI when this build has one, and a pasted token always. */
import { useState } from 'preact/hooks';
import { tokenProblem } from '../auth.js';
import { Alert } from './alert.js';

export interface SignInProps {
  hostedUi: boolean;
  problem: string | null;
  onHostedUi(): void;
  onToken(token: string): void;
}

export function SignIn({ hostedUi, problem, onHostedUi, onToken }: SignInProps) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <main class="sign-in">
      <h1>panto</h1>
      <p>Chat with your sessions.</p>
      <Alert message={problem} />
      {hostedUi && (
        <button type="button" class="primary" onClick={onHostedUi}>
          Sign in
        </button>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const why = tokenProblem(token, Date.now());
          if (why !== null) setError(why);
          else onToken(token.trim());
        }}
      >
        <label for="token">{hostedUi ? 'Or paste a token' : 'Token'}</label>
        <textarea
          id="token"
          rows={3}
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          // A token is one line: Enter uses it, as in a one-line field (the box is tall only to show a long token whole).
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              event.currentTarget.form?.requestSubmit();
            }
          }}
          spellcheck={false}
        />
        <Alert message={error} />
        <button type="submit">Use token</button>
      </form>
      <p class="hint">
        On the local stack, open the link <code>npm start</code> prints, or make a token with <code>npm run -s token -- &lt;owner&gt;</code>.
      </p>
    </main>
  );
}
