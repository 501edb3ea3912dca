// pi (`pi -p`, @mariozechner/pi-coding-agent), pinned in test/agents/package.json,
// with docs/clients.md's models.json: chat completions with `stream: true`,
// `stream_options`, its own system prompt and function tools (read, bash,
// edit, write).

import { describeAgent, writeConfig } from './agentScene.ts';

describeAgent('pi', 'read', (scene, prompt, model) => {
  const home = scene.home();
  writeConfig(home, '.pi/agent/models.json', scene.snippet('**pi**'));
  return scene.run('pi', ['--provider', 'ctxproxy', '--model', model, '-p', prompt], { home });
});
