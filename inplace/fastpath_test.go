package inplace

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// refNow is the clock of the reference tests.
var refNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

var (
	refContainers = []string{"main", "side", "x"}
	refImages     = []string{"nginx:1", "nginx:2", "nginx", "nginx:latest", "reg:5000/nginx"}
	refIDs        = []string{"", "id1", "id2"}
)

// drawSpace draws the white space between JSON tokens.
func drawSpace(t *rapid.T) string {
	return rapid.SampledFrom([]string{"", "", "", " ", "\n\t", "\r\n "}).Draw(t, "space")
}

// drawStatusesText draws a lastContainerStatuses value: records of 0 to 10
// names (duplicates possible, more than a stateView holds possible), other
// members, escapes, or null.
func drawStatusesText(t *rapid.T) string {
	switch rapid.IntRange(0, 19).Draw(t, "statusesForm") {
	case 0:
		return "null"
	case 1:
		return `{"main":{"imageID":"id1","other":1}}`
	case 2:
		return `{"ma\u0069n":{"imageID":"id1"}}`
	case 3:
		return `{"main":{"imageID":null}}`
	}
	names := append([]string{}, refContainers...)
	for i := 3; i < 10; i++ {
		names = append(names, "c"+strconv.Itoa(i))
	}
	n := rapid.IntRange(0, 3).Draw(t, "records")
	if rapid.IntRange(0, 4).Draw(t, "many") == 0 {
		n = rapid.IntRange(4, 10).Draw(t, "manyRecords")
	}
	var recs []string
	for i := 0; i < n; i++ {
		name := names[i]
		if rapid.IntRange(0, 3).Draw(t, "duplicate") == 0 {
			name = rapid.SampledFrom(refContainers).Draw(t, "dupName")
		}
		rec := "{" + drawSpace(t) + "}"
		if id := rapid.SampledFrom(append([]string{"-"}, refIDs...)).Draw(t, "recID"); id != "-" {
			rec = `{"imageID":` + drawSpace(t) + `"` + id + `"}`
		}
		recs = append(recs, `"`+name+`"`+drawSpace(t)+":"+drawSpace(t)+rec)
	}
	return "{" + drawSpace(t) + strings.Join(recs, ","+drawSpace(t)) + drawSpace(t) + "}"
}

// drawStateText draws a state annotation: mostly the common form (see
// stateView), with its variations and the members and spellings that send it
// to json.Unmarshal, sometimes damaged.
func drawStateText(t *rapid.T) string {
	members := map[string][]string{
		"revision":               {`"web-2"`, `"web-1"`, `""`, `"w\u0065b-2"`, `null`, `"é"`},
		"updateTimestamp":        {`"2026-01-01T11:59:50Z"`, `"2026-01-01T11:00:00Z"`, `null`, `""`, `"yesterday"`, `"2026-01-01T12:59:58.5+01:00"`},
		"updateEnvFromMetadata":  {`true`, `false`, `null`},
		"updateResources":        {`true`, `false`},
		"updateImages":           {`true`, `false`, `1`},
		"nextContainerImages":    {`{"side":"nginx:2"}`, `{}`},
		"nextContainerResources": {`{"main":{"limits":{"cpu":"2"}}}`},
		"preCheckBeforeNext":     {`{"containersRequiredReady":["main"]}`, `{"containersRequiredReady":["x"]}`},
		"Revision":               {`"web-2"`},
		"other":                  {`1`},
	}
	keys := []string{"revision", "updateTimestamp", "lastContainerStatuses", "updateEnvFromMetadata", "updateResources", "updateImages"}
	var parts []string
	for _, k := range keys {
		if rapid.IntRange(0, 5).Draw(t, "omit") == 0 {
			continue
		}
		v := ""
		if k == "lastContainerStatuses" {
			v = drawStatusesText(t)
		} else {
			v = rapid.SampledFrom(members[k][:2]).Draw(t, "common")
			if rapid.IntRange(0, 5).Draw(t, "unusual") == 0 {
				v = rapid.SampledFrom(members[k]).Draw(t, "value")
			}
		}
		parts = append(parts, `"`+k+`"`+drawSpace(t)+":"+drawSpace(t)+v)
	}
	for i, n := 0, rapid.IntRange(-3, 2).Draw(t, "extra"); i < n; i++ {
		k := rapid.SampledFrom([]string{"revision", "updateImages", "lastContainerStatuses", "nextContainerImages", "nextContainerResources", "preCheckBeforeNext", "Revision", "other"}).Draw(t, "extraKey")
		if k == "lastContainerStatuses" {
			parts = append(parts, `"`+k+`":`+drawStatusesText(t))
		} else {
			parts = append(parts, `"`+k+`":`+rapid.SampledFrom(members[k]).Draw(t, "extraValue"))
		}
	}
	perm := rapid.Permutation(parts).Draw(t, "order")
	text := drawSpace(t) + "{" + drawSpace(t) + strings.Join(perm, drawSpace(t)+","+drawSpace(t)) + drawSpace(t) + "}" + drawSpace(t)
	if rapid.IntRange(0, 9).Draw(t, "damage") == 0 && len(text) > 0 {
		i := rapid.IntRange(0, len(text)-1).Draw(t, "at")
		text = text[:i] + rapid.SampledFrom([]string{"", ",", "}", `"`, "\\", "\x01", "\xff"}).Draw(t, "with") + text[i+1:]
	}
	return text
}

// drawRefPod draws a pod of two or three containers with statuses,
// conditions and in-place annotations.
func drawRefPod(t *rapid.T) *model.Pod {
	p := &model.Pod{
		Name:        "web-a",
		Labels:      map[string]string{model.LabelRevisionHash: rapid.SampledFrom([]string{"web-1", "web-2", "2"}).Draw(t, "revisionLabel")},
		Annotations: map[string]string{model.AnnotationLifecycleTimestamp: "2026-01-01T00:00:00Z"},
	}
	for _, name := range refContainers[:rapid.IntRange(1, 3).Draw(t, "containers")] {
		p.Spec.Containers = append(p.Spec.Containers, model.Container{Name: name, Image: rapid.SampledFrom(refImages).Draw(t, "image")})
	}
	for i, n := 0, rapid.IntRange(0, 4).Draw(t, "statuses"); i < n; i++ {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, model.ContainerStatus{
			Name:        rapid.SampledFrom(refContainers).Draw(t, "statusName"),
			Image:       rapid.SampledFrom(refImages).Draw(t, "statusImage"),
			ImageID:     rapid.SampledFrom(refIDs).Draw(t, "statusID"),
			ContainerID: rapid.SampledFrom([]string{"", "c1"}).Draw(t, "containerID"),
			Ready:       rapid.Bool().Draw(t, "ready"),
		})
	}
	if rapid.Bool().Draw(t, "gate") {
		p.Spec.ReadinessGates = []string{model.ConditionInPlaceUpdateReady}
	}
	if rapid.Bool().Draw(t, "condition") {
		p.Status.Conditions = []model.PodCondition{{Type: model.ConditionInPlaceUpdateReady,
			Status: rapid.SampledFrom([]string{"True", "False"}).Draw(t, "conditionStatus"),
			Reason: rapid.SampledFrom([]string{"", "StartInPlaceUpdate"}).Draw(t, "conditionReason")}}
	}
	switch rapid.IntRange(0, 5).Draw(t, "stateKey") {
	case 1, 2, 3:
		p.Annotations[model.AnnotationInPlaceUpdateState] = drawStateText(t)
	case 4:
		p.Annotations[model.AnnotationInPlaceUpdateStateLegacy] = drawStateText(t)
	case 5:
		p.Annotations[model.AnnotationInPlaceUpdateState] = drawStateText(t)
		p.Annotations[model.AnnotationInPlaceUpdateStateLegacy] = drawStateText(t)
	}
	if rapid.IntRange(0, 4).Draw(t, "grace") == 0 {
		key := rapid.SampledFrom([]string{model.AnnotationInPlaceUpdateGrace, model.AnnotationInPlaceUpdateGraceLegacy}).Draw(t, "graceKey")
		p.Annotations[key] = rapid.SampledFrom([]string{"",
			`{"revision":"web-2","containerImages":{"main":"nginx:2"},"graceSeconds":30}`,
			`{"revision":"web-1","containerImages":{"side":"nginx:2"},"graceSeconds":3600}`,
			`{"revision":"web-2"`}).Draw(t, "graceValue")
	}
	switch rapid.IntRange(0, 5).Draw(t, "runtimeMeta") {
	case 1:
		p.Annotations[model.AnnotationRuntimeContainersMeta] = `{"containers":[{"name":"main","containerID":"c1"},{"name":"side","containerID":"c1"},{"name":"x","containerID":"c1"}]}`
	case 2:
		p.Annotations[model.AnnotationRuntimeContainersMeta] = `{"containers":`
	}
	return p
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Refresh, Completed and ParseState answer exactly as the references (the
// code before the allocation work over json.Unmarshal), whatever the
// annotations: the state view and the completion check over its records are
// only shortcuts.
func TestPropertyRefreshMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawRefPod(t)
		gates := model.FeatureGates{InPlaceWorkloadVerticalScaling: rapid.Bool().Draw(t, "vertical")}

		acts, wait, err := Refresh(p, gates, refNow)
		wantActs, wantWait, wantErr := refreshRef(p, gates, refNow)
		if !reflect.DeepEqual(acts, wantActs) || wait != wantWait || errText(err) != errText(wantErr) {
			t.Fatalf("Refresh = %+v, %v, %v\nreference %+v, %v, %v", acts, wait, err, wantActs, wantWait, wantErr)
		}

		done, err := Completed(p, gates)
		wantDone, wantErr := completedRef(p, gates)
		if done != wantDone || errText(err) != errText(wantErr) {
			t.Fatalf("Completed = %v, %v; reference %v, %v", done, err, wantDone, wantErr)
		}

		state, ok, err := ParseState(p)
		wantState, wantOK, wantErr := parseStateRef(p)
		if !reflect.DeepEqual(state, wantState) || ok != wantOK || errText(err) != errText(wantErr) {
			t.Fatalf("ParseState = %+v, %v, %v\nreference %+v, %v, %v", state, ok, err, wantState, wantOK, wantErr)
		}
		if ok && err == nil {
			done, err := ContainersCompleted(p, state, gates)
			wantDone, wantErr := containersCompletedRef(p, state, gates)
			if done != wantDone || errText(err) != errText(wantErr) {
				t.Fatalf("ContainersCompleted = %v, %v; reference %v, %v", done, err, wantDone, wantErr)
			}
		}
	})
}

// The state view holds the records of any text it takes, and takes the
// common form up to maxViewStatuses records.
func TestStateViewRecords(t *testing.T) {
	for n := 0; n <= maxViewStatuses+1; n++ {
		var recs []string
		for i := 0; i < n; i++ {
			recs = append(recs, `"c`+strconv.Itoa(i)+`":{"imageID":"id`+strconv.Itoa(i)+`"}`)
		}
		text := `{"revision":"r","lastContainerStatuses":{` + strings.Join(recs, ",") + `}}`
		var sv stateView
		ok := scanState(text, &sv)
		if ok != (n <= maxViewStatuses) {
			t.Fatalf("%d records: scanState = %v", n, ok)
		}
		if !ok {
			continue
		}
		want := &State{}
		if err := json.Unmarshal([]byte(text), want); err != nil {
			t.Fatal(err)
		}
		if got := sv.state(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%d records: %+v, json.Unmarshal %+v", n, got, want)
		}
		r := sv.records()
		if r.len() != n {
			t.Fatalf("%d records: len %d", n, r.len())
		}
		for i := 0; i < n; i++ {
			if id, ok := r.get("c" + strconv.Itoa(i)); !ok || id != "id"+strconv.Itoa(i) {
				t.Fatalf("record c%d: %q, %v", i, id, ok)
			}
		}
		if _, ok := r.get("c" + strconv.Itoa(n)); ok {
			t.Fatalf("record c%d found", n)
		}
	}
}

// The string reader takes the same strings, of every length and with the
// special bytes at every position, as a byte-at-a-time reader.
func TestStateScannerStrings(t *testing.T) {
	ref := func(s string) (string, bool) {
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '"':
				v := s[:i]
				var tmp string
				if json.Unmarshal([]byte(`"`+v+`"`), &tmp) != nil || tmp != v {
					return "", false
				}
				return v, true
			case c == '\\' || c < 0x20:
				return "", false
			}
		}
		return "", false
	}
	rapid.Check(t, func(t *rapid.T) {
		b := []byte(rapid.StringMatching(`[a-z0-9:/@.-]{0,40}`).Draw(t, "text"))
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "specials"); i < n && len(b) > 0; i++ {
			b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = rapid.SampledFrom([]byte{'"', '\\', 0x00, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xa9, 0xff}).Draw(t, "byte")
		}
		s := string(b) + rapid.SampledFrom([]string{`"`, ``, `" , "x"`}).Draw(t, "end")
		p := stateScanner{s: `"` + s}
		got, ok := p.str()
		want, wantOK := ref(s)
		if got != want || ok != wantOK {
			t.Fatalf("str(%q) = %q, %v; reference %q, %v", s, got, ok, want, wantOK)
		}
		if ok && p.i != len(want)+2 {
			t.Fatalf("str(%q) stopped at %d", s, p.i)
		}
	})
}

// A RevisionIndex answers as the plain functions, whatever the order of the
// questions.
func TestPropertyRevisionIndexMatchesFunctions(t *testing.T) {
	tmpl := func(image string) map[string]any {
		return tree(t, `{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"main","image":"`+image+`"}]}}`)
	}
	all := []*model.Revision{
		rev("web-1", 1, tmpl("nginx:1"), map[string]string{model.AnnotationVCTHash: "a"}),
		rev("web-2", 2, tmpl("nginx:2"), map[string]string{model.AnnotationVCTHash: "b"}),
		rev("web-4", 4, tree(t, `{"metadata":{"labels":{"app":"web","tier":"b"}},"spec":{"containers":[{"name":"main","image":"nginx:2",`+
			`"env":[{"name":"T","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['tier']"}}}]}]}}`), nil),
		rev("web-5", 5, tree(t, `{"metadata":{"labels":{"app":"web","tier":"c"}},"spec":{"containers":[{"name":"main","image":"nginx:2",`+
			`"env":[{"name":"T","valueFrom":{"fieldRef":{"fieldPath":"metadata.labels['tier']"}}}]}]}}`), nil),
		rev("other-2", 2, tmpl("nginx:3"), nil),
		rev("web-3", 3, tree(t, `{"spec":{"containers":[{"name":"main","image":"nginx:1","env":[{"name":"A","value":"1"}]}]}}`), nil),
		nil,
	}
	rapid.Check(t, func(t *rapid.T) {
		revs := rapid.Permutation(all).Draw(t, "revisions")[:rapid.IntRange(0, len(all)).Draw(t, "count")]
		x := NewRevisionIndex(revs)
		names := []string{"web-1", "web-2", "other-2", "web-3", "web-4", "web-5", "2", "web-9", ""}
		for i, n := 0, rapid.IntRange(1, 20).Draw(t, "questions"); i < n; i++ {
			switch rapid.IntRange(0, 3).Draw(t, "question") {
			case 0:
				p := &model.Pod{Labels: map[string]string{model.LabelRevisionHash: rapid.SampledFrom(names).Draw(t, "label")}}
				if got, want := x.OldRevision(p), OldRevision(p, revs); got != want {
					t.Fatalf("OldRevision: %v, want %v", got, want)
				}
			case 1:
				name := rapid.SampledFrom(names).Draw(t, "name")
				if got, want := x.FindRevision(name), FindRevision(name, revs); got != want {
					t.Fatalf("FindRevision(%q): %v, want %v", name, got, want)
				}
			default:
				old := FindRevision(rapid.SampledFrom(names).Draw(t, "old"), revs)
				target := FindRevision(rapid.SampledFrom(names).Draw(t, "target"), revs)
				opts := Options{
					Policy: rapid.SampledFrom([]string{model.PolicyInPlaceIfPossible, model.PolicyInPlaceOnly}).Draw(t, "policy"),
					Gates: model.FeatureGates{InPlaceUpdateEnvFromMetadata: rapid.Bool().Draw(t, "env"),
						RecreatePodWhenChangeVCTInCloneSetGate: rapid.Bool().Draw(t, "vct")},
				}
				want := Calculate(old, target, opts)
				if got := x.Calculate(old, target, opts); !reflect.DeepEqual(got, want) {
					t.Fatalf("Calculate: %+v, want %+v", got, want)
				}
				if got := x.Summary(old, target, opts); got != want.Summary() {
					t.Fatalf("Summary: %q, want %q", got, want.Summary())
				}
			}
		}
	})
}

// Texts at the edges of the state view, on a pod whose main container
// changed image (id1 → id2) and whose side container did not: Refresh and
// Completed answer as the references.
func TestRefreshMatchesReferenceTable(t *testing.T) {
	texts := []string{
		`{"revision":"web-2","updateTimestamp":"2026-01-01T11:59:50Z","lastContainerStatuses":{"main":{"imageID":"id1"}},"updateImages":true}`,
		`{"lastContainerStatuses":{"main":{"imageID":"id2"}}}`,
		`{"lastContainerStatuses":{"main":{"imageID":"id2"},"main":{"imageID":"id1"}}}`,
		`{"lastContainerStatuses":{"main":{"imageID":"id1"},"main":{"imageID":"id2"}}}`,
		`{"lastContainerStatuses":{"main":{"imageID":"id1"}},"lastContainerStatuses":{"side":{"imageID":"id1"}}}`,
		`{"lastContainerStatuses":{"side":{"imageID":"id1"}}}`,
		`{"lastContainerStatuses":{"side":{"imageID":"id2"}}}`,
		`{"lastContainerStatuses":{"gone":{}}}`,
		`{"lastContainerStatuses":{}}`,
		`{"lastContainerStatuses":null}`,
		`{"lastContainerStatuses":{"main":{"imageID":"id1"},"c1":{},"c2":{},"c3":{},"c4":{},"c5":{},"c6":{},"c7":{},"c8":{}}}`,
		`{"updateEnvFromMetadata":true,"lastContainerStatuses":{"main":{"imageID":"id1"}}}`,
		`{"updateResources":true,"lastContainerStatuses":{"main":{"imageID":"id1"}}}`,
		`{"lastContainerStatuses":{"main":{"imageID":"id1"}},"nextContainerImages":{"side":"nginx:2"}}`,
		`{"lastContainerStatuses":{"main":{"imageID":"id1"}},"nextContainerResources":{"side":{"limits":{"cpu":"1"}}}}`,
		`{"updateTimestamp":"yesterday"}`,
		`{"revision":"web-2"`,
	}
	for _, text := range texts {
		for _, gates := range []model.FeatureGates{{}, {InPlaceWorkloadVerticalScaling: true}} {
			p := &model.Pod{
				Name:        "web-a",
				Labels:      map[string]string{model.LabelRevisionHash: "web-2"},
				Annotations: map[string]string{model.AnnotationInPlaceUpdateState: text},
				Spec: model.PodSpec{
					Containers:     []model.Container{{Name: "main", Image: "nginx:2"}, {Name: "side", Image: "nginx:1"}},
					ReadinessGates: []string{model.ConditionInPlaceUpdateReady},
				},
				Status: model.PodStatus{ContainerStatuses: []model.ContainerStatus{
					{Name: "main", Image: "nginx:2", ImageID: "id2", ContainerID: "c1"},
					{Name: "side", Image: "nginx:1", ImageID: "id1", ContainerID: "c2"},
				}},
			}
			acts, wait, err := Refresh(p, gates, refNow)
			wantActs, wantWait, wantErr := refreshRef(p, gates, refNow)
			if !reflect.DeepEqual(acts, wantActs) || wait != wantWait || errText(err) != errText(wantErr) {
				t.Errorf("%s: Refresh = %+v, %v, %v\nreference %+v, %v, %v", text, acts, wait, err, wantActs, wantWait, wantErr)
			}
			done, err := Completed(p, gates)
			wantDone, wantErr := completedRef(p, gates)
			if done != wantDone || errText(err) != errText(wantErr) {
				t.Errorf("%s: Completed = %v, %v; reference %v, %v", text, done, err, wantDone, wantErr)
			}
		}
	}
}

// When RefreshNeeded says no, Refresh does nothing, whatever the gates and
// the time; the generator reaches both answers.
func TestPropertyRefreshNeeded(t *testing.T) {
	var skipped, needed int
	rapid.Check(t, func(t *rapid.T) {
		p := drawRefPod(t)
		if rapid.IntRange(0, 2).Draw(t, "bare") == 0 { // no state, no grace
			delete(p.Annotations, model.AnnotationInPlaceUpdateState)
			delete(p.Annotations, model.AnnotationInPlaceUpdateStateLegacy)
			delete(p.Annotations, model.AnnotationInPlaceUpdateGrace)
			delete(p.Annotations, model.AnnotationInPlaceUpdateGraceLegacy)
		}
		inGrace, need := RefreshFacts(p)
		if inGrace != (p.GraceValue() != "") || need != RefreshNeeded(p) {
			t.Fatalf("RefreshFacts = %v, %v; want %v, %v", inGrace, need, p.GraceValue() != "", RefreshNeeded(p))
		}
		if RefreshNeeded(p) {
			needed++
			return
		}
		skipped++
		gates := model.FeatureGates{InPlaceWorkloadVerticalScaling: rapid.Bool().Draw(t, "vertical")}
		now := refNow.Add(time.Duration(rapid.IntRange(-3600, 3600).Draw(t, "shift")) * time.Second)
		if acts, wait, err := Refresh(p, gates, now); acts != nil || wait != 0 || err != nil {
			t.Fatalf("RefreshNeeded is false but Refresh = %+v, %v, %v", acts, wait, err)
		}
	})
	if skipped == 0 || needed == 0 {
		t.Fatalf("the generator reached skipped=%d needed=%d: both answers must be checked", skipped, needed)
	}
}
