package memoryplugin

import (
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
)

// The kernel reads the correction marks by the plugin's name, arrow and
// metadata keys: the two sides must spell them alike.
func TestKernelSpellsTheMarksLikeThePlugin(t *testing.T) {
	if Name != kernel.MemoryPlugin || Arrow != kernel.MarkArrow {
		t.Fatalf("plugin %q %q, kernel %q %q", Name, Arrow, kernel.MemoryPlugin, kernel.MarkArrow)
	}
	if metaShown != kernel.MetaMemoryShown || metaDeleted != kernel.MetaMemoryDeleted || metaCorrected != kernel.MetaMemoryFixed {
		t.Fatalf("metadata keys differ: %q %q %q", metaShown, metaDeleted, metaCorrected)
	}
}
