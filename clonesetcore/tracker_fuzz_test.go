package clonesetcore_test

import "testing"

// FuzzTracker decodes two worlds and a sequence of events from the fuzz
// bytes (the draws of checkTrackerEvents: the first world, the second, the
// order in which the first world's objects arrive, the events, the way to
// the second world; missing bytes read as 0) and checks that every plan of
// a Tracker fed those events equals Plan on the same objects, and the last
// one Plan on the second world. go test runs the seed corpus only.
//
// Run it with: go test -run=^$ -fuzz=FuzzTracker -fuzztime=5m ./clonesetcore/
func FuzzTracker(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{3, 0, 0, 0, 5},
		{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 7, 7, 2, 3, 4, 1, 6, 7},
		{4, 1, 2, 1, 2, 0, 0, 1, 0, 0, 0, 1, 1, 0, 2, 0, 1, 1, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 9, 8, 7, 6, 5, 4, 3, 2, 1,
			8, 4, 1, 0, 3, 1, 1, 1, 2, 1, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 0, 9, 23, 2, 3, 4, 4, 1, 7, 6, 1, 0, 7},
		[]byte("a longer seed with many different decisions in it: 0123456789abcdef, and events: \x02\x03\x04\x05\x06\x07"),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := &byteSource{data: data}
		a := genWorld(src).build(identity)
		b := genWorld(src).build(identity)
		checkTrackerEvents(t, src, a, b)
	})
}
