import FindMyWay from 'find-my-way';
import type { HTTPMethod } from 'find-my-way';

/**
 * Mirror of the registered routes, used only to tell a 405 (path exists, other method)
 * from a 404 and to list `Allow`.
 */
export class MethodRouter {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly methods = new Set<HTTPMethod>();

  add(method: string | readonly string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      const verb = String(m).toUpperCase() as HTTPMethod;
      if (this.router.find(verb, url)) continue;
      this.router.on(verb, url, () => undefined);
      this.methods.add(verb);
    }
  }

  /** Methods that answer `path`, sorted; empty when the path is unknown. */
  allowed(path: string): string[] {
    return [...this.methods].filter((m) => this.router.find(m, path) !== null).sort();
  }
}
