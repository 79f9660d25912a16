import { listSearch } from './listSearch';
import { loadOptions } from './loadOptions';

export { listSearch, loadOptions };

/** What node files put under `methods`: every picker's list search and the triggers' option loaders. */
export const nodeMethods = { listSearch, loadOptions };
