/** What the main column shows when no session is open: what to do, and what went wrong if anything did. */
import { Alert } from './alert.js';

export function Welcome({ problem }: { problem: string | null }) {
  return (
    <section class="welcome">
      <h1>panto</h1>
      <p>Pick a session, or start a new one.</p>
      <Alert message={problem} />
    </section>
  );
}
