package lockset

import (
	"fmt"

	"weft/isa"
)

// State returns the Eraser state of the word at a, for tests:
// "virgin", "exclusive(T)" with the owner T, "shared" or "shared-modified".
func (d *Detector) State(a uint64) string {
	i := int((a - isa.DataBase) / isa.WordBytes)
	if i >= len(d.words) {
		return "virgin"
	}
	w := &d.words[i]
	if w.state == exclusive {
		return fmt.Sprintf("exclusive(%d)", w.owner)
	}
	return w.state.String()
}
