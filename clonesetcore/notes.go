package clonesetcore

import "fmt"

// notes collects the plan's explanations in order, without duplicates.
type notes struct {
	list []string
	seen map[string]bool
}

func (n *notes) add(format string, args ...any) {
	n.addText(fmt.Sprintf(format, args...))
}

// addText adds a note already written.
func (n *notes) addText(s string) {
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if n.seen[s] {
		return
	}
	n.seen[s] = true
	n.list = append(n.list, s)
}

func (n *notes) addAll(list []string) {
	for _, s := range list {
		n.addText(s)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// podsWait is "1 pod waits" or "n pods wait".
func podsWait(n int) string {
	if n == 1 {
		return "1 pod waits"
	}
	return plural(n, "pod", "pods") + " wait"
}

// podsAre is "1 pod is" or "n pods are".
func podsAre(n int) string {
	if n == 1 {
		return "1 pod is"
	}
	return plural(n, "pod", "pods") + " are"
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
