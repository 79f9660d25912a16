/**
 * An error answer of the sandbox, read side and write side alike: status, code, the parameter it is
 * about, extra headers. The server turns it into the one error body (core/schemas/common.ts errorBodySchema).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} was not found`);
