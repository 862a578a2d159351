package sim

import (
	"encoding/json"

	"github.com/clonecore/cloneset/model"
)

// The simulator copies the model objects it keeps and hands out with their
// DeepCopy methods (package model), so no two objects share mutable state.

func copyIntOrPercent(v *model.IntOrPercent) *model.IntOrPercent {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return `"` + err.Error() + `"`
	}
	return string(b)
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
