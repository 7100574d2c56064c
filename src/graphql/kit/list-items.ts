import { DomainError } from '../../errors/catalogue.js';

/**
 * The second line of defence behind the cost rule: a cap on the list items one HTTP request
 * resolves (all operations of a batch together), so that a document whose cost was misjudged
 * still cannot build a huge response. Past the cap, lists fail with QUERY_TOO_COMPLEX.
 */
export class ListItemBudget {
  #left: number;

  constructor(readonly limit: number) {
    this.#left = limit;
  }

  spend(items: number): void {
    this.#left -= items;
    if (this.#left < 0) {
      throw new DomainError(
        'QUERY_TOO_COMPLEX',
        `This request resolves more than ${this.limit} list items; ask for smaller pages or fewer nested lists`,
      );
    }
  }
}
