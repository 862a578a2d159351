package kruisee2e

// Stages returns the kwok Stage documents the suite's control plane runs
// with besides the built-in ones (controlplane.Stages).
func Stages() []string {
	return nil
}
