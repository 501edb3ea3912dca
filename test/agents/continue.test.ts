// Continue's CLI (`cn -p`), pinned in test/agents/package.json, with
// docs/clients.md's config.yaml (the current CLI requires its `name`, `version` and
// `schema`): chat completions with `stream_options` and its function tools
// (Read, List, Bash …).

import { describeAgent, MODEL, writeConfig } from './agentScene.ts';

// docs/clients.md's config; `model` swapped for a `+mode` variant, as docs/clients.md says to add one.
describeAgent('Continue CLI', 'Read', (scene, prompt, model) => {
  const home = scene.home();
  const config = scene.snippet('**Continue**').replace(`model: ${MODEL}\n`, `model: ${model}\n`);
  const file = writeConfig(home, '.continue/config.yaml', config);
  return scene.run('cn', ['-p', prompt, '--config', file], { home });
});
