package sdk

// The correction marks (the PKU document's CONTEXT_MARK) and how a
// memory tool tells the host about them. When a remembered fact is
// deleted or corrected, each conversation that was shown the old fact
// gets one line in its next request, once:
//
//   - [已删除] old
//   - [更正] old → new
//
// The host learns what a conversation was shown from its own recall,
// and from the ToolResult metadata of the built-in memory plugin
// (MemoryPluginName): each of the keys below holds facts one per line,
// a correction as old + MarkArrow + new. The host reads these keys only
// from that plugin, a built-in's name no other plugin can take.
const (
	// MemoryPluginName is the registered name of Hearth's built-in
	// memory plugin ("memory" is reserved for Hearth itself).
	MemoryPluginName = "memories"

	// MarkDeleted opens the line of a deleted fact.
	MarkDeleted = "[已删除]"
	// MarkCorrected opens the line of a corrected fact.
	MarkCorrected = "[更正]"
	// MarkArrow separates the old fact from the new one in a correction
	// line and in MetaMemoryCorrected; a fact may not contain it.
	MarkArrow = " → "

	// MetaMemoryShown lists the facts a tool's result showed the model.
	MetaMemoryShown = "memory.shown"
	// MetaMemoryDeleted lists the facts a tool deleted.
	MetaMemoryDeleted = "memory.deleted"
	// MetaMemoryCorrected lists the corrections a tool made, each as
	// old + MarkArrow + new.
	MetaMemoryCorrected = "memory.corrected"
)
