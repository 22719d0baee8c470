import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectSwatch } from '../../../ui/src/lib/projects/projectSwatch.ts';

/** The projects page's pure parts, without a browser: the colours of a project's card. */

const DEFAULT = { gradientStartColor: '#5bdbff', gradientEndColor: '#1c76fc' };

test('projects that never chose colours get one from their name: the same name the same, different names apart', () => {
  const chatbot = projectSwatch({ name: 'chatbot', ...DEFAULT });
  assert.equal(projectSwatch({ name: 'chatbot', ...DEFAULT }), chatbot);
  assert.match(chatbot.start, /^hsl\(\d+ /);
  const hues = new Set(
    ['default', 'chatbot', 'rag-search', 'evals', 'support-bot'].map((name) => projectSwatch({ name, ...DEFAULT }).start),
  );
  assert.is(hues.size, 5);
});

test('colours someone chose are kept, whatever their case', () => {
  assert.equal(projectSwatch({ name: 'x', gradientStartColor: '#8B6DFF', gradientEndColor: '#2fb6d6' }), {
    start: '#8B6DFF',
    end: '#2fb6d6',
  });
  // one of the two chosen is enough
  assert.equal(projectSwatch({ name: 'x', gradientStartColor: '#5bdbff', gradientEndColor: '#000000' }), {
    start: '#5bdbff',
    end: '#000000',
  });
});

test.run();
