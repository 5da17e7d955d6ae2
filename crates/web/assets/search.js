// Search and the record view.
import { h, view } from './core.js';

view('search', 'Search', (container) => {
  container.append(h('h1', {}, 'Search'));
});
