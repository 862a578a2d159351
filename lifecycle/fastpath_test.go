package lifecycle

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/clonecore/cloneset/inplace"
	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// errText is the text of an error, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// sameDecision fails unless got and want are equal, errors compared by text.
func sameDecision(t *rapid.T, where string, got, want UpdateDecision) {
	if errText(got.Err) != errText(want.Err) {
		t.Fatalf("%s: error %q, reference %q", where, errText(got.Err), errText(want.Err))
	}
	got.Err, want.Err = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got       %+v\n reference %+v", where, got, want)
	}
}

// drawDecisionPod is drawPod, sometimes without a revision label or with
// another state, scheduling or grace.
func drawDecisionPod(t *rapid.T, name string) *model.Pod {
	p := drawPod(t, name)
	if rapid.IntRange(0, 9).Draw(t, name+"NoRevision") == 0 {
		delete(p.Labels, model.LabelRevisionHash)
	}
	if rapid.IntRange(0, 9).Draw(t, name+"NoTemplateHash") == 0 {
		delete(p.Labels, model.LabelPodTemplateHash)
	}
	return p
}

// setState sets the pod's lifecycle state label ("": none).
func setState(p *model.Pod, state string) {
	if state == "" {
		delete(p.Labels, model.LabelLifecycleState)
	} else {
		p.Labels[model.LabelLifecycleState] = state
	}
}

// DecideUpdate, with or without an index shared by the candidates of a round,
// and AppendDecideUpdate decide exactly as the reference (the code before the
// allocation work).
func TestPropertyDecideUpdateMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cs := drawCloneSet(t)
		gates := drawGates(t)
		gates.CloneSetShortHash = rapid.Bool().Draw(t, "shortHash")
		revs := revisions()
		index := inplace.NewRevisionIndex(revs)
		var dst []model.Action
		for i, n := 0, rapid.IntRange(1, 3).Draw(t, "pods")*len(allStates); i < n; i++ {
			p := drawDecisionPod(t, "web-p"+strconv.Itoa(i))
			setState(p, allStates[i%len(allStates)])
			in := UpdateInput{CloneSet: cs, Pod: p, Revisions: revs, Gates: gates, Now: now,
				Target: rapid.SampledFrom([]string{"web-1", "web-2", "web-3", "web-x", "2"}).Draw(t, "target")}
			want := decideUpdateRef(in)
			sameDecision(t, "DecideUpdate", DecideUpdate(in), want)
			in.Index = index
			sameDecision(t, "DecideUpdate with an index", DecideUpdate(in), want)

			before := append([]model.Action(nil), dst...)
			if rapid.Bool().Draw(t, "room") {
				dst = append(make([]model.Action, 0, len(dst)+2), dst...)
			}
			var got UpdateDecision
			dst, got = AppendDecideUpdate(dst, in)
			sameDecision(t, "AppendDecideUpdate", got, want)
			if wantDst := append(before, want.Actions...); len(dst) != len(wantDst) || len(dst) > 0 && !reflect.DeepEqual(dst, wantDst) {
				t.Fatalf("AppendDecideUpdate: dst %+v, want %+v followed by %+v", dst, before, want.Actions)
			}
			if cap(got.Actions) != len(got.Actions) {
				t.Fatalf("AppendDecideUpdate: Actions has room to grow (len %d, cap %d)", len(got.Actions), cap(got.Actions))
			}
		}
	})
}

// withMarkers describes a hook as the reference hookMarkers, labels beyond
// the stack buffer included.
func TestPropertyWithMarkersMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h *model.LifecycleHook
		if rapid.IntRange(0, 5).Draw(t, "present") > 0 {
			h = &model.LifecycleHook{}
			if n := rapid.IntRange(-1, 11).Draw(t, "labels"); n >= 0 {
				h.LabelsHandler = map[string]string{}
				for i := 0; i < n; i++ {
					h.LabelsHandler[rapid.StringMatching(`[a-z./-]{0,6}`).Draw(t, "key")] = rapid.StringMatching(`[a-z0-9]{0,3}`).Draw(t, "value")
				}
			}
			h.FinalizersHandler = rapid.SliceOfN(rapid.StringMatching(`[a-z./]{0,8}`), -1, 3).Draw(t, "finalizers")
		}
		prefix, suffix := rapid.String().Draw(t, "prefix"), rapid.String().Draw(t, "suffix")
		if got, want := withMarkers(prefix, h, suffix), prefix+hookMarkersRef(h)+suffix; got != want {
			t.Fatalf("withMarkers = %q, reference %q", got, want)
		}
	})
}

// When RefreshNeeded says no, RefreshInState returns nothing, for every state
// and CloneSet; the generator reaches both answers.
func TestPropertyRefreshNeeded(t *testing.T) {
	var skipped, needed int
	rapid.Check(t, func(t *rapid.T) {
		cs := drawCloneSet(t)
		p := drawDecisionPod(t, "web-r")
		if rapid.Bool().Draw(t, "noHashLabel") {
			delete(p.Labels, model.LabelPodTemplateHash)
		}
		u := rapid.SampledFrom([]string{"web-1", "web-2", "2"}).Draw(t, "updateRevision")
		completed := rapid.Bool().Draw(t, "completed")
		for _, state := range append(allStates, "Unknown-State") {
			setState(p, state)
			_, hasHash := p.Labels[model.LabelPodTemplateHash]
			if RefreshNeeded(state, hasHash) {
				needed++
				continue
			}
			skipped++
			if got := RefreshInState(cs, p, state, u, completed); got != nil {
				t.Fatalf("RefreshNeeded(%q, %v) is false but RefreshInState = %+v", state, hasHash, got)
			}
		}
	})
	if skipped == 0 || needed == 0 {
		t.Fatalf("skipped=%d needed=%d: both answers must be checked", skipped, needed)
	}
}
