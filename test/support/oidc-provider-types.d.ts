// The members of oidc-provider (no type definitions of its own; see bench/types) that the
// in-process test provider uses: Koa's `callback`, the interaction API and grants (v9 README).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionDetails {
    readonly uid: string;
    readonly prompt: { readonly name: string };
    readonly params: Readonly<Record<string, unknown>>;
    readonly session?: { readonly accountId?: string };
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  interface Provider {
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    readonly Grant: new (properties: { accountId: string; clientId: string }) => GrantInstance;
  }
}
