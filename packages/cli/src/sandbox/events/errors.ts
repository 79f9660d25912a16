/**
 * An error answer of the write side: status, code and the parameter it is about. The sandbox server turns
 * it into the one error body (docs/assumptions.md, "Error body").
 */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}
