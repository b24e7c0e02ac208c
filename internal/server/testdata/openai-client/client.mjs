// Runs the official OpenAI client against a Hearth server and prints what
// it got as one JSON object: node client.mjs BASE_URL TOKEN
// (internal/server/openai_client_test.go runs it).
import OpenAI from "openai";

const [baseURL, apiKey] = process.argv.slice(2);
if (!baseURL || !apiKey) {
  console.error("usage: node client.mjs BASE_URL TOKEN");
  process.exit(2);
}
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });

const models = await client.models.list();
const modelIds = [];
for await (const m of models) modelIds.push(m.id);

const completion = await client.chat.completions.create({
  model: "hearth",
  messages: [{ role: "user", content: "Say hello." }],
  temperature: 0.5,
});

const stream = await client.chat.completions.create({
  model: "hearth",
  messages: [{ role: "user", content: "Stream hello." }],
  stream: true,
  stream_options: { include_usage: true },
});
let streamed = "";
let chunks = 0;
let finishReason = null;
let streamUsage = null;
for await (const chunk of stream) {
  chunks++;
  for (const choice of chunk.choices) {
    streamed += choice.delta?.content ?? "";
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (chunk.usage) streamUsage = chunk.usage;
}

let refused = null;
try {
  await client.chat.completions.create({ model: "hearth", n: 2, messages: [{ role: "user", content: "x" }] });
} catch (err) {
  refused = { status: err.status, message: err.message };
}

console.log(JSON.stringify({
  models: modelIds,
  completion: {
    id: completion.id,
    object: completion.object,
    content: completion.choices[0].message.content,
    finish_reason: completion.choices[0].finish_reason,
    usage: completion.usage,
  },
  stream: { content: streamed, chunks, finish_reason: finishReason, usage: streamUsage },
  refused,
}));
