// Kubernetes: an Indexed Job of N completions, all at once (parallelism N), never retried; each
// pod's JOB_COMPLETION_INDEX (from 0) is its shard, and its log holds its result.

const quote = (s) => JSON.stringify(String(s)); // a YAML double-quoted scalar is JSON's string

/** The Job as YAML, for `kubectl apply -f -`. */
export function jobManifest({ name, shards, image, command = null, args }) {
  const list = (items) => `[${items.map(quote).join(', ')}]`;
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  labels:
    app.kubernetes.io/name: loadtest
spec:
  completionMode: Indexed
  completions: ${shards}
  parallelism: ${shards}
  backoffLimit: 0
  template:
    metadata:
      labels:
        app.kubernetes.io/name: loadtest
    spec:
      restartPolicy: Never
      containers:
        - name: loadtest
          image: ${quote(image)}
${command === null ? '' : `          command: ${list(command)}\n`}          args: ${list(args)}
          env:
            - name: LOADTEST_SHARDS
              value: ${quote(shards)}
            - name: NO_COLOR
              value: "1"
`;
}
