// Child process for the crash test: appends batches to a session file forever, printing
// each batch's number once appendMessages has resolved (i.e. it is fsynced).
import { FSJSONLStore } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';

const store = await FSJSONLStore.open(process.argv[2]!);
const f = new RecordFactory(`p${process.pid}`);
for (let batch = 1; ; batch++) {
  const size = 1 + (batch % 4);
  const records = [];
  for (let i = 0; i < size; i++) {
    records.push(i % 2 === 0 ? f.user(`batch ${batch} item ${i} ${'x'.repeat(batch % 7 === 0 ? 20_000 : 50)}`) : f.assistant(`batch ${batch} item ${i}`));
  }
  await store.appendMessages(records);
  process.stdout.write(`${batch}:${size}\n`);
}
