package clonesetcore

// SetCompactSlack sets how many pod additions and deletions a Tracker lets
// wait before rebuilding its name order (besides n/8) and returns the
// previous value, for tests that want the rebuild to happen often.
func SetCompactSlack(n int) int {
	old := compactSlack
	compactSlack = n
	return old
}

// SetRenumberMin sets the number of pods from which a Tracker renumbers
// scattered slots and returns the previous value, for tests that want the
// renumbering to happen on small worlds.
func SetRenumberMin(n int) int {
	old := renumberMin
	renumberMin = n
	return old
}
