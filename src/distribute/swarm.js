// Docker Swarm: one service of N tasks, each a shard (its slot, 1 to N, is its share), on the
// host's network so that 127.0.0.1 is the machine's; never restarted (a shard runs once).

/** `docker service create` arguments (after `docker`). */
export function serviceArgs({ name, shards, image, command, workdir = null, writable = false, env = {} }) {
  const args = ['service', 'create', '--name', name, '--replicas', String(shards), '--restart-condition', 'none', '--network', 'host'];
  args.push('--label', 'loadtest.shards=' + shards, '--env', `LOADTEST_SHARD={{.Task.Slot}}/${shards}`);
  for (const [k, v] of Object.entries(env)) args.push('--env', `${k}=${v}`);
  // The files the command names (a body, a list of URLs, a script) where they are here.
  if (workdir !== null) args.push('--mount', `type=bind,source=${workdir},target=${workdir}${writable ? '' : ',readonly'}`, '--workdir', workdir);
  args.push('--detach', '--quiet', image, ...command);
  return args;
}

/** `docker service ps` arguments for the lines taskStates() reads. */
export const psArgs = (name) => ['service', 'ps', name, '--no-trunc', '--format', '{{.ID}}\t{{.Name}}\t{{.CurrentState}}\t{{.Error}}'];

const ENDED = new Set(['complete', 'failed', 'rejected', 'shutdown', 'orphaned', 'remove']);

/** The tasks of `docker service ps`: [{ id, slot, state, ended, error }], by slot. */
export function taskStates(text, name) {
  const tasks = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const [id, taskName, current = '', error = ''] = line.split('\t');
    const slot = Number(taskName.slice(name.length + 1));
    const state = current.split(' ')[0].toLowerCase();
    tasks.push({ id, slot, state, ended: ENDED.has(state), error: error.replace(/^"|"$/g, '') });
  }
  return tasks.sort((a, b) => a.slot - b.slot);
}
