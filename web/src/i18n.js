// i18n.js: the UI's words in English and Chinese. The language follows
// the browser until the user picks one, which is remembered.
import { signal } from './state.js';

const en = {
  'app.name': 'Hearth',
  'nav.chat': 'Chat', 'nav.plugins': 'Plugins', 'nav.settings': 'Settings', 'nav.memory': 'Memory',
  'nav.knowledge': 'Knowledge', 'nav.traces': 'Traces', 'nav.providers': 'Models', 'nav.usage': 'Usage',
  'lang.switch': '中文',
  'auth.title': 'Hearth needs its token',
  'auth.body': 'This page talks to your Hearth with a secret token. Open the address `hearth serve` printed (it ends with #token=...), or run this command and paste its output below:',
  'auth.paste': 'Paste the token here', 'auth.save': 'Continue',
  'auth.wrong': 'That is not this Hearth\'s token. Copy the whole line `hearth token` prints and try again.',
  'auth.tab': 'The token is kept in this tab only, and forgotten when you close it.',
  'auth.other': 'Hearth needs its token: run `hearth token` and paste what it prints.',
  'auth.squatter': 'Another program answers at this address; the token was not sent.',
  'auth.squatterBody': 'The connection to Hearth broke, and what answers now could not prove it is your Hearth (it does not know the token). Hearth may have stopped and another program taken its port. Do not reload this tab or paste the token: start Hearth again (`hearth serve`), then check again.',
  'auth.recheck': 'Check again',
  'auth.insecure': 'The connection to Hearth broke, and over plain HTTP this page cannot check that it reached your Hearth again, so the token was not sent. Paste it again to go on, if you trust this address.',
  'channel.terminal': 'terminal', 'channel.ask': 'hearth ask', 'channel.openai': 'OpenAI API', 'channel.web': 'web',
  'auth.bad': 'The token was refused. Run `hearth token` again (or `hearth token --rotate` if it leaked).',
  'chat.new': 'New chat', 'chat.empty': 'No conversations yet.', 'chat.placeholder': 'Message Hearth…',
  'chat.send': 'Send', 'chat.stop': 'Stop', 'chat.stopUnsupported': 'This Hearth cannot stop a turn on its own yet: send a new message to interrupt it.', 'chat.interrupt': 'Interrupt and send',
  'chat.hello': 'What can I do for you?', 'chat.reasoning': 'Reasoning', 'chat.thinking': 'Thinking…',
  'chat.trace': 'Trace', 'chat.delete': 'Delete', 'chat.deleteConfirm': 'Forget this conversation?',
  'chat.untitled': 'New conversation', 'chat.busy': 'working', 'chat.interrupted': 'Interrupted.', 'chat.usage': '{i} in · {o} out tokens', 'chat.usageCached': '{i} in ({c} cached) · {o} out tokens',
  'chat.usageExact': 'Tokens: {i} in, of which {c} cached; {o} out', 'chat.failed': 'This answer failed before it finished.',
  'chat.sessions': 'Conversations', 'chat.offline': 'Reconnecting…',
  'prompt.menu': 'Prompts of MCP servers', 'prompt.send': 'Send prompt', 'prompt.required': 'Required: {names}',
  'tool.running': 'running', 'tool.done': 'done', 'tool.failed': 'failed', 'tool.args': 'Arguments', 'tool.result': 'Result',
  'appr.title': 'Approval needed', 'appr.once': 'Allow once', 'appr.always': 'Always allow', 'appr.deny': 'Deny',
  'appr.confirm': 'This tool {effect}. To always allow it, type "always":', 'appr.confirmBtn': 'Confirm',
  'appr.from': 'from {channel}', 'appr.pending': '{n} pending', 'appr.none': 'No pending approvals.',
  'appr.decided': '{answer} by {by}', 'appr.expires': 'expires {at}', 'appr.reason': 'Why',
  'effect.read': 'only reads', 'effect.write': 'changes your data', 'effect.money': 'spends money', 'effect.public': 'publishes or speaks for you',
  'widget.title': 'Plugin widgets', 'widget.empty': 'No data.', 'widget.done': 'Done.', 'widget.trend': 'Trend, latest {v}',
  'plug.state': 'State', 'plug.enable': 'Enable', 'plug.disable': 'Disable', 'plug.reload': 'Reload',
  'plug.stderr': 'Recent stderr', 'plug.tools': 'Tools', 'plug.none': 'No plugins.', 'plug.error': 'Error', 'plug.settings': 'Settings', 'plug.restart': 'Built into Hearth: turning it on or off takes effect at the next start.',
  'set.save': 'Save', 'set.saved': 'Saved.', 'set.secretSet': 'set', 'set.secretUnset': 'not set',
  'set.secretHint': 'Write-only: type a new value to replace it.', 'set.required': 'required',
  'set.none': 'No settings declared.', 'set.prefs': 'Preferences', 'set.default': 'default: {v}', 'set.invalid': 'Some values are not valid.',
  'mem.entities': 'Entities', 'mem.relations': 'Relations', 'mem.search': 'Search names…', 'mem.merge': 'Merge', 'mem.rename': 'Rename', 'mem.forgetRelation': 'Forget this relation',
  'mem.mergeInto': 'Merge "{a}" into…', 'mem.purge': 'Forget', 'mem.purgeConfirm': 'Forget "{a}" and its relations?',
  'mem.none': 'Nothing remembered yet.', 'mem.mentions': '{n} mentions', 'mem.type': 'Type', 'mem.hard': 'Delete for good', 'mem.soft': 'Hide until mentioned again', 'mem.stats': '{e} entities · {r} relations · {d} documents',
  'mem.scope': 'Scope', 'mem.writer': 'Written by', 'mem.allScopes': 'All scopes', 'mem.typeOf': 'What "{a}" is (a person, a place…)', 'mem.setType': 'Set type',
  'scope.global': 'Global', 'scope.owner': 'My conversations', 'scope.chat': 'Chat {c}', 'scope.group': 'Group {c}', 'writer.you': 'You',
  'doc.title': 'Documents', 'doc.search': 'Search documents…', 'doc.none': 'No documents remembered yet.', 'doc.noHits': 'No document matches.',
  'doc.delete': 'Delete', 'doc.deleteConfirm': 'Delete the document "{a}" from memory?',
  'kb.edit': 'Edit', 'kb.preview': 'Preview', 'kb.empty': 'Nothing to preview yet.',
  'kb.new': 'New document', 'kb.title': 'Title', 'kb.body': 'Text', 'kb.save': 'Save', 'kb.delete': 'Delete',
  'kb.none': 'The knowledge base is empty.', 'kb.search': 'Search the knowledge base…', 'kb.deleteConfirm': 'Delete this document?',
  'kb.namePlaceholder': 'recipes/dumplings (a / makes a folder)', 'kb.noHits': 'No entry matches.', 'kb.more': 'The first {n} of {total}: search to find the others.',
  'tr.none': 'No traces yet.', 'tr.stages': 'Stages', 'tr.calls': 'Model calls', 'tr.tools': 'Tool calls', 'tr.approvals': 'Approvals',
  'tr.model': 'Model', 'tr.tokens': 'Tokens in/out/cached', 'tr.cost': 'Cost', 'tr.latency': 'Latency', 'tr.duration': 'Duration',
  'tr.total': 'Total', 'tr.unknownCost': 'unknown', 'tr.answered': 'answered', 'tr.error': 'failed', 'tr.interrupted': 'interrupted',
  'prov.title': 'Connect a model', 'prov.intro': 'Hearth needs a model to talk to. Pick a provider, paste its API key, test it, and start chatting.',
  'prov.preset': 'Provider', 'prov.key': 'API key', 'prov.baseURL': 'Base URL', 'prov.model': 'Model',
  'prov.test': 'Save and test', 'prov.testing': 'Testing…', 'prov.ok': 'It works: {model} answered in {ms} ms.', 'prov.save': 'Start chatting',
  'prov.name': 'Name', 'prov.optional': 'optional', 'prov.advanced': 'Address and model', 'prov.keyAt': 'Get a key at',
  'prov.current': 'In use', 'prov.sources': 'Model sources', 'prov.add': 'Add a provider', 'prov.use': 'Use',
  'prov.more': 'Balance, models and prices', 'prov.balance': 'Balance', 'prov.models': 'Models and prices',
  'prov.balanceUnsupported': 'Not supported: Hearth cannot read this provider\'s balance (it reads DeepSeek\'s, Kimi\'s and SiliconFlow\'s).',
  'prov.balanceError': 'Could not read the balance: {m}', 'prov.unavailable': 'The provider says this account cannot make calls now.',
  'prov.toppedUp': '{v} topped up', 'prov.granted': '{v} granted',
  'prov.modelsError': 'Could not list the models: {m}', 'prov.noModels': 'No models known.',
  'prov.context': 'Context', 'prov.priceIn': 'Input', 'prov.priceCached': 'Cached input', 'prov.priceOut': 'Output',
  'prov.listed': 'Models as the provider lists them now; prices from Hearth\'s presets.', 'prov.presetList': 'Models from Hearth\'s preset for this provider.',
  'prov.perMillion': 'Prices per million tokens.',
  'usage.today': 'Today', 'usage.tokens': 'Tokens', 'usage.money': 'Spent in {c}', 'usage.of': '{v} of {limit}',
  'usage.noLimit': 'no daily limit', 'usage.tokensN': '{n} tokens',
  'usage.noBudgets': 'No budgets are set: config.json\'s "budgets" can cap tokens and money per day and per conversation.',
  'usage.sessionLimit': 'Each conversation may spend up to {v}.', 'usage.noSessionLimit': 'No limit per conversation.',
  'usage.groupBy': 'Group by', 'usage.by.day': 'Day', 'usage.by.source': 'Source', 'usage.by.model': 'Model',
  'usage.by.session': 'Conversation', 'usage.by.plugin': 'Plugin',
  'usage.calls': 'Calls', 'usage.input': 'Input tokens', 'usage.cached': 'Cached', 'usage.output': 'Output tokens', 'usage.cost': 'Cost',
  'usage.unpriced': 'unpriced', 'usage.unpricedCalls': '{n} unpriced', 'usage.none': 'No model calls recorded yet.',
  'usage.noSession': 'no conversation', 'usage.noPlugin': 'you (no plugin)',
  'common.loading': 'Loading…', 'common.error': 'Something went wrong: {m}', 'common.cancel': 'Cancel', 'common.refresh': 'Refresh',
  'common.notAvailable': 'This Hearth does not offer this page yet.', 'common.close': 'Close',
};

const zh = {
  'app.name': 'Hearth',
  'nav.chat': '对话', 'nav.plugins': '插件', 'nav.settings': '设置', 'nav.memory': '记忆',
  'nav.knowledge': '知识库', 'nav.traces': '追踪', 'nav.providers': '模型', 'nav.usage': '用量',
  'lang.switch': 'English',
  'auth.title': 'Hearth 需要访问令牌',
  'auth.body': '此页面使用一个秘密令牌与你的 Hearth 通信。请打开 `hearth serve` 打印的地址（以 #token=... 结尾），或者运行下面的命令并把输出粘贴到这里：',
  'auth.paste': '在这里粘贴令牌', 'auth.save': '继续',
  'auth.wrong': '这不是这个 Hearth 的令牌。请复制 `hearth token` 输出的完整一行，再试一次。',
  'auth.tab': '令牌只保存在这个标签页里，关闭标签页就会忘记。',
  'auth.other': 'Hearth 需要访问令牌：运行 `hearth token`，把输出粘贴到这里。',
  'auth.squatter': '这个地址上回应的是另一个程序；令牌没有发送。',
  'auth.squatterBody': '与 Hearth 的连接断开了，现在回应的程序无法证明它是你的 Hearth（它不知道令牌）。可能 Hearth 已停止，另一个程序占用了它的端口。不要刷新这个标签页，也不要粘贴令牌：重新启动 Hearth（`hearth serve`），然后再检查一次。',
  'auth.recheck': '再检查一次',
  'auth.insecure': '与 Hearth 的连接断开了。通过普通 HTTP，此页面无法确认重新连上的是你的 Hearth，所以没有发送令牌。如果你信任这个地址，请重新粘贴令牌继续。',
  'channel.terminal': '终端', 'channel.ask': '命令行提问', 'channel.openai': 'OpenAI 接口', 'channel.web': '网页',
  'auth.bad': '令牌被拒绝。请重新运行 `hearth token`（如果令牌泄露，运行 `hearth token --rotate`）。',
  'chat.new': '新对话', 'chat.empty': '还没有对话。', 'chat.placeholder': '给 Hearth 发消息…',
  'chat.send': '发送', 'chat.stop': '停止', 'chat.stopUnsupported': '这个 Hearth 还不能单独停止回答：发送一条新消息即可打断它。', 'chat.interrupt': '打断并发送',
  'chat.hello': '有什么可以帮你？', 'chat.reasoning': '思考过程', 'chat.thinking': '思考中…',
  'chat.trace': '追踪', 'chat.delete': '删除', 'chat.deleteConfirm': '忘记这段对话？',
  'chat.untitled': '新对话', 'chat.busy': '处理中', 'chat.interrupted': '已打断。', 'chat.usage': '输入 {i} · 输出 {o} token', 'chat.usageCached': '输入 {i}（缓存 {c}）· 输出 {o} token',
  'chat.usageExact': 'token：输入 {i}，其中缓存 {c}；输出 {o}', 'chat.failed': '这个回答在完成前出错了。',
  'chat.sessions': '对话', 'chat.offline': '正在重新连接…',
  'prompt.menu': 'MCP 服务器的提示词', 'prompt.send': '发送提示词', 'prompt.required': '必填：{names}',
  'tool.running': '运行中', 'tool.done': '完成', 'tool.failed': '失败', 'tool.args': '参数', 'tool.result': '结果',
  'appr.title': '需要你的批准', 'appr.once': '允许一次', 'appr.always': '总是允许', 'appr.deny': '拒绝',
  'appr.confirm': '这个工具会{effect}。要总是允许，请输入 "always"：', 'appr.confirmBtn': '确认',
  'appr.from': '来自 {channel}', 'appr.pending': '{n} 个待批准', 'appr.none': '没有待批准的请求。',
  'appr.decided': '{by} 选择了 {answer}', 'appr.expires': '{at} 过期', 'appr.reason': '原因',
  'effect.read': '只读取数据', 'effect.write': '修改你的数据', 'effect.money': '花钱', 'effect.public': '对外发布或代表你发言',
  'widget.title': '插件小组件', 'widget.empty': '暂无数据。', 'widget.done': '已完成。', 'widget.trend': '趋势，最新 {v}',
  'plug.state': '状态', 'plug.enable': '启用', 'plug.disable': '停用', 'plug.reload': '重新加载',
  'plug.stderr': '最近的 stderr', 'plug.tools': '工具', 'plug.none': '没有插件。', 'plug.error': '错误', 'plug.settings': '设置', 'plug.restart': '内置插件：启用或停用在下次启动时生效。',
  'set.save': '保存', 'set.saved': '已保存。', 'set.secretSet': '已设置', 'set.secretUnset': '未设置',
  'set.secretHint': '只写：输入新值即可替换。', 'set.required': '必填',
  'set.none': '没有声明设置项。', 'set.prefs': '偏好', 'set.default': '默认：{v}', 'set.invalid': '有些值无效。',
  'mem.entities': '实体', 'mem.relations': '关系', 'mem.search': '搜索名称…', 'mem.merge': '合并', 'mem.rename': '重命名', 'mem.forgetRelation': '忘记这条关系',
  'mem.mergeInto': '把 "{a}" 合并到…', 'mem.purge': '忘记', 'mem.purgeConfirm': '忘记 "{a}" 及其关系？',
  'mem.none': '还没有记住任何东西。', 'mem.mentions': '提及 {n} 次', 'mem.type': '类型', 'mem.hard': '彻底删除', 'mem.soft': '隐藏，直到再次提及', 'mem.stats': '{e} 个实体 · {r} 个关系 · {d} 篇文档',
  'mem.scope': '范围', 'mem.writer': '写入者', 'mem.allScopes': '全部范围', 'mem.typeOf': '"{a}" 是什么（人、地点…）', 'mem.setType': '设置类型',
  'scope.global': '全局', 'scope.owner': '我的对话', 'scope.chat': '对话 {c}', 'scope.group': '群 {c}', 'writer.you': '我',
  'doc.title': '文档', 'doc.search': '搜索文档…', 'doc.none': '还没有记住任何文档。', 'doc.noHits': '没有匹配的文档。',
  'doc.delete': '删除', 'doc.deleteConfirm': '从记忆中删除文档 "{a}"？',
  'kb.edit': '编辑', 'kb.preview': '预览', 'kb.empty': '还没有可预览的内容。',
  'kb.new': '新文档', 'kb.title': '标题', 'kb.body': '正文', 'kb.save': '保存', 'kb.delete': '删除',
  'kb.none': '知识库是空的。', 'kb.search': '搜索知识库…', 'kb.deleteConfirm': '删除这个文档？',
  'kb.namePlaceholder': '菜谱/红烧肉（/ 表示文件夹）', 'kb.noHits': '没有匹配的条目。', 'kb.more': '显示前 {n} 条，共 {total} 条：搜索可找到其余的。',
  'tr.none': '还没有追踪记录。', 'tr.stages': '阶段', 'tr.calls': '模型调用', 'tr.tools': '工具调用', 'tr.approvals': '批准',
  'tr.model': '模型', 'tr.tokens': '输入/输出/缓存 token', 'tr.cost': '费用', 'tr.latency': '延迟', 'tr.duration': '耗时',
  'tr.total': '合计', 'tr.unknownCost': '未知', 'tr.answered': '已回答', 'tr.error': '失败', 'tr.interrupted': '已打断',
  'prov.title': '连接一个模型', 'prov.intro': 'Hearth 需要一个模型。选择服务商，粘贴 API 密钥，测试一下，然后开始对话。',
  'prov.preset': '服务商', 'prov.key': 'API 密钥', 'prov.baseURL': '接口地址', 'prov.model': '模型',
  'prov.test': '保存并测试', 'prov.testing': '测试中…', 'prov.ok': '可以使用：{model} 用 {ms} 毫秒作答。', 'prov.save': '开始对话',
  'prov.name': '名称', 'prov.optional': '可不填', 'prov.advanced': '地址和模型', 'prov.keyAt': '在这里获取密钥：',
  'prov.current': '使用中', 'prov.sources': '模型来源', 'prov.add': '添加服务商', 'prov.use': '使用',
  'prov.more': '余额、模型和价格', 'prov.balance': '余额', 'prov.models': '模型和价格',
  'prov.balanceUnsupported': '不支持：Hearth 无法读取这个服务商的余额（可读取 DeepSeek、Kimi 和硅基流动的余额）。',
  'prov.balanceError': '无法读取余额：{m}', 'prov.unavailable': '服务商表示这个账户现在无法调用。',
  'prov.toppedUp': '充值 {v}', 'prov.granted': '赠送 {v}',
  'prov.modelsError': '无法列出模型：{m}', 'prov.noModels': '没有已知的模型。',
  'prov.context': '上下文', 'prov.priceIn': '输入', 'prov.priceCached': '缓存输入', 'prov.priceOut': '输出',
  'prov.listed': '模型来自服务商当前的列表；价格来自 Hearth 的预设。', 'prov.presetList': '模型来自 Hearth 对这个服务商的预设。',
  'prov.perMillion': '价格按每百万 token 计。',
  'usage.today': '今天', 'usage.tokens': 'token', 'usage.money': '{c} 花费', 'usage.of': '{v} / {limit}',
  'usage.noLimit': '没有每日上限', 'usage.tokensN': '{n} token',
  'usage.noBudgets': '没有设置预算：config.json 的 "budgets" 可以限制每天和每段对话的 token 与花费。',
  'usage.sessionLimit': '每段对话最多花费 {v}。', 'usage.noSessionLimit': '每段对话没有上限。',
  'usage.groupBy': '分组', 'usage.by.day': '日期', 'usage.by.source': '模型来源', 'usage.by.model': '模型',
  'usage.by.session': '对话', 'usage.by.plugin': '插件',
  'usage.calls': '调用次数', 'usage.input': '输入 token', 'usage.cached': '缓存', 'usage.output': '输出 token', 'usage.cost': '费用',
  'usage.unpriced': '未定价', 'usage.unpricedCalls': '{n} 次未定价', 'usage.none': '还没有模型调用记录。',
  'usage.noSession': '不属于对话', 'usage.noPlugin': '你（非插件）',
  'common.loading': '加载中…', 'common.error': '出错了：{m}', 'common.cancel': '取消', 'common.refresh': '刷新',
  'common.notAvailable': '这个 Hearth 还没有提供这个页面。', 'common.close': '关闭',
};

const dicts = { en, zh };

function initial() {
  const saved = localStorage.getItem('hearth.lang');
  if (saved === 'en' || saved === 'zh') return saved;
  return (navigator.language || 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

// lang is the current language, 'en' or 'zh'.
export const lang = signal(initial());
document.documentElement.lang = lang.value === 'zh' ? 'zh-CN' : 'en';

// setLang switches the language and remembers it.
export function setLang(l) {
  localStorage.setItem('hearth.lang', l);
  document.documentElement.lang = l === 'zh' ? 'zh-CN' : 'en';
  lang.value = l;
}

// t returns the text for key in language l (the current one by
// default), with {name} replaced from vars.
export function t(key, vars, l = lang.value) {
  let s = dicts[l][key] ?? en[key] ?? key;
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  return s;
}
