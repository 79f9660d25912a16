import { ApiError } from '../http/errors';

/**
 * Records of one account kept by id (monitoring lists, saved searches). The record map is plain data, so
 * the account state serialises as it is.
 */
export class IdStore<T extends { id: string; created_at: number }> {
  constructor(
    private readonly items: Record<string, T>,
    /** The parameter that carries the id (list_id, search_id): a not-found error names it. */
    private readonly idParam: string,
  ) {}

  protected put(item: T): T {
    this.items[item.id] = item;
    return item;
  }

  get(id: string): T {
    const item = this.items[id];
    if (!item) throw new ApiError(404, 'not_found', `${this.idParam} ${id} does not exist`, this.idParam);
    return item;
  }

  /** Oldest first. */
  all(): T[] {
    return Object.values(this.items).sort((a, b) => a.created_at - b.created_at);
  }

  remove(id: string): void {
    this.get(id);
    delete this.items[id];
  }
}
