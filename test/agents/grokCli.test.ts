// Grok CLI (`grok -p`, @vibe-kit/grok-cli), pinned in test/agents/package.json,
// with docs/clients.md's user-settings.json: chat completions through the openai
// SDK, streamed, with its system prompt and function tools (bash, view_file,
// create_file, …); it reads a file with its bash tool's `cat`.

import { describeAgent, writeConfig } from './agentScene.ts';

describeAgent('Grok CLI', 'bash', (scene, prompt, model) => {
  const home = scene.home();
  writeConfig(home, '.grok/user-settings.json', scene.snippet('**Grok CLI**'));
  return scene.run('grok', ['--model', model, '-p', prompt], { home });
});
