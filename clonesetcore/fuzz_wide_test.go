package clonesetcore_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/clonecore/cloneset/clonesetcore"
	"github.com/clonecore/cloneset/model"
)

// wideSource is the source of FuzzPlanWide: intn reads one byte, like
// byteSource, and the wide draws read up to eight bytes; once the input is
// used up every draw is 0.
type wideSource struct {
	data []byte
}

func (w *wideSource) intn(_ string, n int) int {
	if len(w.data) == 0 || n <= 1 {
		return 0
	}
	v := int(w.data[0])
	w.data = w.data[1:]
	return v % n
}

func (w *wideSource) bytes(k int) uint64 {
	var b [8]byte
	copy(b[:], w.data[:min(k, len(w.data))])
	w.data = w.data[min(k, len(w.data)):]
	return binary.LittleEndian.Uint64(b[:])
}

// wideLimit is the MaxCreatePods of FuzzPlanWide: small enough that an
// execution stays fast, so that the fuzzer reaches both sides of it.
const wideLimit = 3000

// int32 draws a number from the whole int32 range: small values, the
// boundaries (the limit, the cluster size, MaxInt32, MinInt32) and any 32-bit
// pattern, a third each.
func (w *wideSource) int32(label string) int32 {
	switch w.intn(label, 3) {
	case 0:
		return int32(w.intn(label, 17))
	case 1:
		b := []int32{math.MaxInt32, math.MaxInt32 - 1, math.MinInt32, -1, 0, 1, wideLimit, wideLimit + 1,
			clonesetcore.DefaultMaxCreatePods, clonesetcore.DefaultMaxCreatePods + 1, 1 << 24, 14348907}
		return b[w.intn(label, len(b))]
	default:
		return int32(uint32(w.bytes(4)))
	}
}

// size draws a count up to max: small counts half of the time, any count up
// to max otherwise.
func (w *wideSource) size(label string, max int) int {
	if w.intn(label, 2) == 0 {
		return w.intn(label, 8)
	}
	return int(w.bytes(2) % uint64(max+1))
}

// intOrPercent draws an IntOrString from the whole range of both forms:
// integers of int32 and percentages of any int64, with the texts the two
// parsers treat specially.
func (w *wideSource) intOrPercent(label string) model.IntOrPercent {
	switch w.intn(label, 4) {
	case 0, 1:
		return model.FromInt(w.int32(label))
	case 2:
		return model.FromString(fmt.Sprintf("%d%%", int64(w.bytes(8))))
	default:
		odd := []string{"100%", "0%", "1e308%", "-1e308%", "NaN%", "Inf%", "9223372036854775807%", "-9223372036854775808%",
			"4294967296%", "12.5%", "100.0%", "%", "", "50", "0x10%", "99999999999999999999%", "2147483647%", "-2147483648%"}
		return model.FromString(odd[w.intn(label, len(odd))])
	}
}

// wideWorld draws a world of genWorld, then overrides every number the input
// can carry with wide draws and grows the pods and podsToDelete to thousands.
func wideWorld(src *wideSource) *worldSpec {
	ws := genWorld(src)
	ws.Replicas = src.int32("replicas")
	ws.Partition = src.intOrPercent("partition")
	ws.MaxSurge = src.intOrPercent("maxSurge")
	ws.MaxUnavailable = src.intOrPercent("maxUnavailable")
	if src.intn("scaleMaxUnavailable", 2) == 1 {
		v := src.intOrPercent("scaleMaxUnavailable")
		ws.ScaleMaxUnavail = &v
	}
	ws.Grace = src.int32("grace")
	ws.MinReady = src.int32("minReady")
	if src.intn("pds", 2) == 1 {
		v := src.int32("pds")
		ws.PDS = &v
	}
	if len(ws.Pods) > 0 {
		base := ws.Pods
		for i := range src.size("copies", 2000) {
			ps := base[i%len(base)]
			ps.Name = fmt.Sprintf("q%d", i)
			ws.Pods = append(ws.Pods, ps)
		}
	}
	for i := range src.size("podsToDelete", 4000) {
		if len(ws.Pods) > 0 && i%2 == 0 {
			ws.PodsToDelete = append(ws.PodsToDelete, ws.Pods[(i/2)%len(ws.Pods)].Name)
		} else {
			ws.PodsToDelete = append(ws.PodsToDelete, fmt.Sprintf("ghost-%d", i))
		}
	}
	return ws
}

// FuzzPlanWide is FuzzPlan with the numbers of the input drawn from their
// whole range (replicas, partition, maxSurge, maxUnavailable and the scale
// limit as integers of int32 or percentages of int64, minReadySeconds,
// progressDeadlineSeconds and the grace period of int32) and sizes up to
// thousands (pods, podsToDelete names). Plan and Rank must answer without a
// panic, in memory bounded by the objects of the scenario and the pods the
// plan creates (never by the numbers), with a plan of at most the limit's
// creations or a *LimitError that is right to refuse; the plan must be
// deterministic, marshal and keep the invariants of invariantViolations.
//
// Run it with: go test -run='^$' -fuzz='^FuzzPlanWide$' -fuzztime=10m -parallel=1 ./clonesetcore/
func FuzzPlanWide(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0})
	f.Add(bytes.Repeat([]byte{2, 0xff, 0xff, 0xff, 0x7f}, 40))
	f.Add(bytes.Repeat([]byte{3, 1, 7, 2, 9}, 60))
	f.Add([]byte("wide numbers: replicas, surges, percentages of huge totals, thousands of podsToDelete names"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hung execution becomes a crash with the stacks, which the fuzzer
		// records with its input.
		watchdog := time.AfterFunc(60*time.Second, func() { panic("FuzzPlanWide: one execution ran for 60 s") })
		defer watchdog.Stop()
		ws := wideWorld(&wideSource{data: data})
		s := ws.build(identity)
		opts := clonesetcore.Options{Limits: clonesetcore.Limits{MaxCreatePods: wideLimit}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		res, err := clonesetcore.PlanWithOptions(s, opts)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		objects := len(s.Pods) + len(s.PVCs) + len(ws.PodsToDelete)
		// About 20 KB per object and per created pod is far above what a plan
		// needs (docs/performance.md: under one allocation per pod), and far
		// below what sizing anything by a number would take.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(8<<20+20<<10*(objects+wideLimit)) {
			t.Fatalf("Plan allocated %d MB for %d objects (replicas %d)", alloc>>20, objects, ws.Replicas)
		}
		if elapsed > 10*time.Second {
			t.Fatalf("Plan took %v for %d objects", elapsed, objects)
		}
		if err != nil {
			var le *clonesetcore.LimitError
			if !errors.As(err, &le) || res != nil {
				t.Fatalf("Plan: %v", err)
			}
			if le.Wanted <= wideLimit || le.Limit != wideLimit || le.Field == "" {
				t.Fatalf("refused a plan within the limit: %+v", le)
			}
		} else {
			creates := 0
			for _, a := range res.Actions {
				if a.Type == model.ActionCreatePod {
					creates++
				}
			}
			if creates > wideLimit {
				t.Fatalf("%d creations above the limit %d", creates, wideLimit)
			}
			// Per pod and PVC a few writes, one podsToDelete rewrite, one
			// revision create or renumbering, a delete per stored revision.
			if len(res.Actions) > creates+3*(len(s.Pods)+len(s.PVCs))+2+len(s.Revisions) {
				t.Fatalf("%d actions for %d pods, %d PVCs and %d revisions", len(res.Actions), len(s.Pods), len(s.PVCs), len(s.Revisions))
			}
			if v := invariantViolations(s, res); len(v) > 0 {
				t.Fatalf("invariants broken: %q", v)
			}
			j1 := mustJSON(t, res)
			res2, err := clonesetcore.PlanWithOptions(ws.build(identity), opts)
			if err != nil || !bytes.Equal(mustJSON(t, res2), j1) {
				t.Fatalf("two calls differ (%v)", err)
			}
		}
		for _, what := range []string{clonesetcore.RankForDeletion, clonesetcore.RankForUpdate} {
			if _, err := clonesetcore.Rank(s, what); err != nil {
				t.Fatalf("Rank %s: %v", what, err)
			}
		}
	})
}
