package expectations_test

import (
	"fmt"
	"time"

	"github.com/clonecore/cloneset/expectations"
)

// A controller records its writes, then checks them against its cache at
// the start of the next reconcile, and plans only once they are all seen.
func Example() {
	store := expectations.New(expectations.DefaultTimeout)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	webX := expectations.Object{Kind: "Pod", Name: "web-x"}
	webA := expectations.Object{Kind: "Pod", Name: "web-a"}

	// Round 1 creates web-x and patches web-a in place (the server answered
	// resourceVersion 42).
	store.ExpectCreate("default/web", webX, now)
	store.ExpectResourceVersion("default/web", webA, "42", now)

	// Round 2, one second later: the cache shows web-x but still the old web-a.
	cacheShows := map[expectations.Object]expectations.Observation{
		webX: {Present: true, ResourceVersion: "43"},
		webA: {Present: true, ResourceVersion: "40"},
	}
	look := func(o expectations.Object) expectations.Observation { return cacheShows[o] }
	v := store.Satisfied("default/web", now.Add(time.Second), look)
	fmt.Println(v.Satisfied, v.Pending[0].Object, v.RequeueAfter)

	// Round 3: the cache caught up.
	cacheShows[webA] = expectations.Observation{Present: true, ResourceVersion: "42"}
	v = store.Satisfied("default/web", now.Add(2*time.Second), look)
	fmt.Println(v.Satisfied)
	// Output:
	// false Pod/web-a 4m59s
	// true
}
