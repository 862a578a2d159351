package ordering

import (
	"slices"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"github.com/google/go-cmp/cmp"
)

type updKeyCase struct {
	why   string
	first []podOpt
}

// updateKeys lists the keys of section 5 in precedence order (name excluded).
func updateKeys() []updKeyCase {
	return []updKeyCase{
		{WhyUnscheduled, []podOpt{unscheduled()}},
		{WhyPhase, []podOpt{phase(model.PodPending)}},
		{WhyNotReady, []podOpt{notReady()}},
		{WhyReadyTime, []podOpt{readyAt(t0.Add(time.Minute))}},
		{WhyRestarts, []podOpt{restarts(3)}},
		{WhySidecarRestarts, []podOpt{sidecarRestarts(3)}},
		{WhyCreationTime, []podOpt{created(t0.Add(-30 * time.Minute))}},
	}
}

func checkUpdateFirst(t *testing.T, pods []*model.Pod, opts UpdateOptions, want []string, why string) {
	t.Helper()
	for _, in := range [][]*model.Pod{pods, reversed(pods)} {
		got := SortForUpdate(in, opts)
		assertOrder(t, got, want...)
		if got[0].Why != why {
			t.Fatalf("why(%s) = %q, want %q", want[0], got[0].Why, why)
		}
		if w := got[len(got)-1].Why; w != WhyLast && w != WhyPreparingUpdate {
			t.Fatalf("final why %q", got[len(got)-1].Why)
		}
	}
}

func TestUpdateKeyIsolation(t *testing.T) {
	for _, k := range updateKeys() {
		t.Run(k.why, func(t *testing.T) {
			a, b := newPod("z-a", k.first...), newPod("a-b")
			checkUpdateFirst(t, []*model.Pod{a, b}, UpdateOptions{}, []string{"z-a", "a-b"}, k.why)
		})
	}
	t.Run(WhyName, func(t *testing.T) {
		checkUpdateFirst(t, []*model.Pod{newPod("b"), newPod("a")}, UpdateOptions{}, []string{"a", "b"}, WhyName)
	})
}

func TestUpdateKeyPrecedence(t *testing.T) {
	keys := updateKeys()
	tested := 0
	for i, ki := range keys {
		for _, kj := range keys[i+1:] {
			t.Run(ki.why+">"+kj.why, func(t *testing.T) {
				a := newPod("z-a", ki.first...)
				b := newPod("a-b", kj.first...)
				checkUpdateFirst(t, []*model.Pod{a, b}, UpdateOptions{}, []string{"z-a", "a-b"}, ki.why)
				// b does win on key j against a neutral pod.
				checkUpdateFirst(t, []*model.Pod{newPod("0-neutral"), b}, UpdateOptions{}, []string{"a-b", "0-neutral"}, kj.why)
			})
			tested++
		}
	}
	if want := len(keys) * (len(keys) - 1) / 2; tested != want {
		t.Fatalf("tested %d pairs, want %d", tested, want)
	}
}

// Priority beats every default key; the PreparingUpdate pass beats priority.
func TestUpdatePassPrecedence(t *testing.T) {
	weight := &model.RollingUpdateStrategy{PriorityStrategy: &model.UpdatePriorityStrategy{
		WeightPriority: []model.UpdatePriorityWeightTerm{{Weight: 10, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{"hot": "1"}}}},
	}}
	for _, k := range updateKeys() {
		t.Run("priority>"+k.why, func(t *testing.T) {
			a := newPod("z-a", labels("hot", "1"))
			b := newPod("a-b", k.first...)
			checkUpdateFirst(t, []*model.Pod{a, b}, UpdateOptions{RollingUpdate: weight}, []string{"z-a", "a-b"}, WhyPriority)
		})
		t.Run("preparingUpdate>"+k.why, func(t *testing.T) {
			a := newPod("z-a", state(model.StatePreparingUpdate))
			b := newPod("a-b", append(k.first, labels("hot", "1"))...)
			checkUpdateFirst(t, []*model.Pod{a, b}, UpdateOptions{RollingUpdate: weight}, []string{"z-a", "a-b"}, WhyPreparingUpdate)
		})
	}
}

func TestUpdateKeyDetails(t *testing.T) {
	t.Run("readiness, not availability", func(t *testing.T) {
		// A PreparingNormal or Updated pod that is Ready is ready here.
		got := SortForUpdate([]*model.Pod{newPod("b", state(model.StatePreparingNormal)), newPod("a", state(model.StateUpdated))}, UpdateOptions{})
		assertOrder(t, got, "a", "b")
		if got[0].Why != WhyName {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("plain init containers are not sidecars", func(t *testing.T) {
		got := SortForUpdate([]*model.Pod{newPod("a"), newPod("b", initRestarts(7))}, UpdateOptions{})
		assertOrder(t, got, "a", "b")
		// A sidecar status without its spec entry does not count either.
		orphan := func(p *model.Pod) {
			p.Status.InitContainerStatuses = []model.ContainerStatus{{Name: "ghost", RestartCount: 5}}
		}
		got = SortForUpdate([]*model.Pod{newPod("a"), newPod("b", orphan)}, UpdateOptions{})
		assertOrder(t, got, "a", "b")
	})
	t.Run("zero ready time first", func(t *testing.T) {
		got := SortForUpdate([]*model.Pod{newPod("a", readyAt(t0.Add(time.Hour))), newPod("b", readyAt(time.Time{}))}, UpdateOptions{})
		assertOrder(t, got, "b", "a")
		if got[0].Why != WhyReadyTime {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("zero creation time first", func(t *testing.T) {
		got := SortForUpdate([]*model.Pod{newPod("a", created(t0)), newPod("b", created(time.Time{}))}, UpdateOptions{})
		assertOrder(t, got, "b", "a")
	})
	t.Run("Unknown before Running, after Pending", func(t *testing.T) {
		got := SortForUpdate([]*model.Pod{newPod("r"), newPod("u", phase(model.PodUnknown)), newPod("p", phase(model.PodPending))}, UpdateOptions{})
		assertOrder(t, got, "p", "u", "r")
	})
}

// exampleTime returns 09:00 + minutes on the example day.
func hm(h, m int) time.Time { return time.Date(2026, 1, 1, h, m, 0, 0, time.UTC) }

func TestExample10DefaultOrder(t *testing.T) {
	pods := []*model.Pod{
		newPod("q1", onNode("n1"), readyAt(hm(10, 0)), created(hm(9, 0))),
		newPod("q2", onNode("n1"), notReady(), created(hm(9, 10))),
		newPod("q3", unscheduled(), phase(model.PodPending), notReady(), created(hm(9, 20))),
		newPod("q4", onNode("n2"), readyAt(hm(10, 5)), restarts(3), created(hm(9, 5))),
		newPod("q5", onNode("n2"), readyAt(hm(10, 5)), created(hm(9, 30))),
		newPod("q6", onNode("n3"), phase(model.PodPending), notReady(), created(hm(9, 40))),
		newPod("q7", onNode("n3"), readyAt(hm(10, 0)), created(hm(9, 50))),
	}
	for _, in := range [][]*model.Pod{pods, reversed(pods)} {
		got := SortForUpdate(in, UpdateOptions{})
		assertOrder(t, got, "q3", "q6", "q2", "q4", "q5", "q7", "q1")
		want := map[string]string{"q3": WhyUnscheduled, "q6": WhyPhase, "q2": WhyNotReady, "q4": WhyRestarts,
			"q5": WhyReadyTime, "q7": WhyCreationTime, "q1": WhyLast}
		if d := cmp.Diff(want, whys(got)); d != "" {
			t.Fatal(d)
		}
		for _, r := range got {
			if r.SpreadRank != 0 {
				t.Fatal("SpreadRank must be 0 for updates")
			}
		}
	}
}

// onlyLabels replaces the pod's labels.
func onlyLabels(kv ...string) podOpt {
	return func(p *model.Pod) {
		p.Labels = map[string]string{}
		labels(kv...)(p)
	}
}

func orderStrategy(keys ...string) *model.RollingUpdateStrategy {
	ps := &model.UpdatePriorityStrategy{}
	for _, k := range keys {
		ps.OrderPriority = append(ps.OrderPriority, model.UpdatePriorityOrderTerm{OrderedKey: k})
	}
	return &model.RollingUpdateStrategy{PriorityStrategy: ps}
}

func TestExample11OrderPriority(t *testing.T) {
	pods := []*model.Pod{
		newPod("p1", onlyLabels()),
		newPod("p2", onlyLabels("tier", "web-3")),
		newPod("p3", onlyLabels("tier", "web-10")),
		newPod("p4", onlyLabels("zone-order", "7")),
		newPod("p5", onlyLabels("tier", "x", "zone-order", "9")),
	}
	got := SortForUpdate(pods, UpdateOptions{RollingUpdate: orderStrategy("tier", "zone-order")})
	assertOrder(t, got, "p1", "p3", "p2", "p5", "p4")
	want := map[string]string{"p1": WhyPriority, "p3": WhyPriority, "p2": WhyPriority, "p5": WhyPriority, "p4": WhyLast}
	if d := cmp.Diff(want, whys(got)); d != "" {
		t.Fatal(d)
	}
}

func weightStrategy() *model.RollingUpdateStrategy {
	return &model.RollingUpdateStrategy{PriorityStrategy: &model.UpdatePriorityStrategy{
		WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 30, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{"app": "a"}}},
			{Weight: 50, MatchSelector: model.LabelSelector{MatchExpressions: []model.LabelSelectorRequirement{{Key: "canary", Operator: model.OpExists}}}},
		},
	}}
}

func TestExample12WeightPriority(t *testing.T) {
	pods := []*model.Pod{
		newPod("w1", onlyLabels("app", "a")),
		newPod("w2", onlyLabels("app", "a", "canary", "true")),
		newPod("w3", onlyLabels("canary", "true")),
		newPod("w4", onlyLabels()),
		newPod("w5", onlyLabels("app", "b", "canary", "false")),
	}
	got := SortForUpdate(pods, UpdateOptions{RollingUpdate: weightStrategy()})
	assertOrder(t, got, "w2", "w3", "w5", "w1", "w4")
	want := map[string]string{"w2": WhyPriority, "w3": WhyName, "w5": WhyPriority, "w1": WhyPriority, "w4": WhyLast}
	if d := cmp.Diff(want, whys(got)); d != "" {
		t.Fatal(d)
	}
	// Equal weights keep the default order, which here is not the name order.
	pods[4] = newPod("w5", onlyLabels("app", "b", "canary", "false"), readyAt(t0.Add(time.Minute)))
	got = SortForUpdate(pods, UpdateOptions{RollingUpdate: weightStrategy()})
	assertOrder(t, got, "w2", "w5", "w3", "w1", "w4")
	if whys(got)["w5"] != WhyReadyTime {
		t.Fatal(whys(got)["w5"])
	}
}

func TestPriorityDetails(t *testing.T) {
	sel := func(ml map[string]string, ex ...model.LabelSelectorRequirement) model.LabelSelector {
		return model.LabelSelector{MatchLabels: ml, MatchExpressions: ex}
	}
	pods := func() []*model.Pod {
		return []*model.Pod{newPod("a", onlyLabels("k", "1")), newPod("b", onlyLabels("k", "2")), newPod("c", onlyLabels("j", "x"))}
	}
	cases := []struct {
		name string
		ps   *model.UpdatePriorityStrategy
		want []string
	}{
		{"empty selector selects every pod", &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 5, MatchSelector: sel(nil)}, {Weight: 1, MatchSelector: sel(map[string]string{"j": "x"})}}}, []string{"c", "a", "b"}},
		{"unknown operator is ignored", &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 5, MatchSelector: sel(map[string]string{"k": "1"}, model.LabelSelectorRequirement{Key: "k", Operator: "Bogus"})},
			{Weight: 1, MatchSelector: sel(map[string]string{"k": "2"})}}}, []string{"b", "a", "c"}},
		{"NotIn without values matches every pod", &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 5, MatchSelector: sel(map[string]string{"j": "x"}, model.LabelSelectorRequirement{Key: "k", Operator: model.OpNotIn})},
			{Weight: 1, MatchSelector: sel(map[string]string{"k": "2"})}}}, []string{"c", "b", "a"}},
		{"Exists with values reads presence only", &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 5, MatchSelector: sel(nil, model.LabelSelectorRequirement{Key: "j", Operator: model.OpExists, Values: []string{"nope"}})},
			{Weight: 1, MatchSelector: sel(map[string]string{"k": "2"})}}}, []string{"c", "b", "a"}},
		{"In without values matches nothing", &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 5, MatchSelector: sel(nil, model.LabelSelectorRequirement{Key: "k", Operator: model.OpIn})},
			{Weight: 1, MatchSelector: sel(map[string]string{"k": "2"})}}}, []string{"b", "a", "c"}},
		{"zero weight changes nothing", &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: 0, MatchSelector: sel(map[string]string{"j": "x"})}}}, []string{"a", "b", "c"}},
		{"negative weight goes last", &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
			{Weight: -1, MatchSelector: sel(map[string]string{"k": "1"})}}}, []string{"b", "c", "a"}},
		{"weight wins over order when both set", &model.UpdatePriorityStrategy{
			WeightPriority: []model.UpdatePriorityWeightTerm{{Weight: 1, MatchSelector: sel(map[string]string{"j": "x"})}},
			OrderPriority:  []model.UpdatePriorityOrderTerm{{OrderedKey: "k"}}}, []string{"c", "a", "b"}},
		{"order: no key first, then higher suffix", &model.UpdatePriorityStrategy{
			OrderPriority: []model.UpdatePriorityOrderTerm{{OrderedKey: "k"}}}, []string{"c", "b", "a"}},
		{"no terms: no priority pass", &model.UpdatePriorityStrategy{}, []string{"a", "b", "c"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SortForUpdate(pods(), UpdateOptions{RollingUpdate: &model.RollingUpdateStrategy{PriorityStrategy: c.ps}})
			assertOrder(t, got, c.want...)
		})
	}
	t.Run("order: presence is enough, empty value reads 0", func(t *testing.T) {
		ps := []*model.Pod{newPod("a", onlyLabels("k", "")), newPod("b", onlyLabels("k", "v3")), newPod("c", onlyLabels())}
		got := SortForUpdate(ps, UpdateOptions{RollingUpdate: orderStrategy("k")})
		assertOrder(t, got, "c", "b", "a")
	})
	t.Run("no terms: no priority why", func(t *testing.T) {
		got := SortForUpdate(pods(), UpdateOptions{RollingUpdate: &model.RollingUpdateStrategy{PriorityStrategy: &model.UpdatePriorityStrategy{}}})
		if got[0].Why != WhyName {
			t.Fatal(got[0].Why)
		}
	})
}

func scatterStrategy(kv ...string) *model.RollingUpdateStrategy {
	ru := &model.RollingUpdateStrategy{}
	for i := 0; i+1 < len(kv); i += 2 {
		ru.ScatterStrategy = append(ru.ScatterStrategy, model.ScatterTerm{Key: kv[i], Value: kv[i+1]})
	}
	return ru
}

// Example 13 (the user docs' example): replicas 10, three pods foo=bar.
func TestExample13ScatterSingleTerm(t *testing.T) {
	var pods []*model.Pod
	for i := 0; i < 10; i++ {
		p := newPod("d" + itoa(i))
		if i == 2 || i == 3 || i == 7 {
			labels("foo", "bar")(p)
		}
		pods = append(pods, p)
	}
	for _, in := range [][]*model.Pod{pods, reversed(pods)} {
		got := SortForUpdate(in, UpdateOptions{RollingUpdate: scatterStrategy("foo", "bar"), AllPods: reversed(pods)})
		assertOrder(t, got, "d2", "d0", "d1", "d4", "d5", "d3", "d6", "d8", "d9", "d7")
		// The labelled pods are updated 1st, 6th and 10th.
		for i, r := range got {
			if (r.Pod.Labels["foo"] == "bar") != (i == 0 || i == 5 || i == 9) {
				t.Fatalf("position %d: %s", i+1, r.Pod.Name)
			}
		}
		w := map[string]string{}
		for _, n := range names(got) {
			w[n] = "scatter:foo=bar"
		}
		w["d6"] = WhyName // the only pod the pass did not move
		if d := cmp.Diff(w, whys(got)); d != "" {
			t.Fatal(d)
		}
	}
}

func example14() []*model.Pod {
	var pods []*model.Pod
	for i := 0; i < 8; i++ {
		p := newPod("m"+itoa(i), onlyLabels("zone", map[bool]string{true: "a", false: "b"}[i < 4]))
		if i == 1 || i == 4 || i == 5 {
			labels("rack", "r1")(p)
		}
		pods = append(pods, p)
	}
	return pods
}

func TestExample14ScatterTwoTerms(t *testing.T) {
	pods := example14()
	got := SortForUpdate(pods, UpdateOptions{RollingUpdate: scatterStrategy("zone", "a"), AllPods: pods})
	assertOrder(t, got, "m0", "m4", "m1", "m5", "m2", "m6", "m7", "m3")
	got = SortForUpdate(pods, UpdateOptions{RollingUpdate: scatterStrategy("rack", "r1", "zone", "a"), AllPods: pods})
	assertOrder(t, got, "m4", "m0", "m2", "m6", "m1", "m7", "m3", "m5")
	// The rack pass moved every pod (zone pass output: m0 m4 m1 m5 m2 m6 m7 m3).
	for n, w := range whys(got) {
		if w != "scatter:rack=r1" {
			t.Errorf("why(%s) = %q", n, w)
		}
	}
	// With the rack term alone (3 candidates carry it, default order m0..m7):
	// M = m1 m4 m5, z = m5, shape(2,5): m1, m0 m2 m3, m4, m6 m7, m5; m2 and
	// m3 keep their positions and are explained by the default order.
	got = SortForUpdate(pods, UpdateOptions{RollingUpdate: scatterStrategy("rack", "r1"), AllPods: pods})
	assertOrder(t, got, "m1", "m0", "m2", "m3", "m4", "m6", "m7", "m5")
	if w := whys(got); w["m2"] != WhyName || w["m3"] != WhyName || w["m6"] != "scatter:rack=r1" {
		t.Fatal(w)
	}
}

// example15 has 12 pods q0..q11, q0-q3 labelled g=1, created newest first so
// that the default order is q0, q1, ..., q11.
func example15() []*model.Pod {
	var pods []*model.Pod
	for i := 0; i < 12; i++ {
		p := newPod("q"+itoa(i), created(t0.Add(-time.Duration(i)*time.Minute)))
		if i < 4 {
			labels("g", "1")(p)
		}
		pods = append(pods, p)
	}
	return pods
}

func pick(pods []*model.Pod, idx ...int) []*model.Pod {
	out := make([]*model.Pod, len(idx))
	for i, x := range idx {
		out[i] = pods[x]
	}
	return out
}

func TestExample15ScatterDensity(t *testing.T) {
	all := example15()
	cases := []struct {
		name  string
		terms *model.RollingUpdateStrategy
		cands []int
		want  []string
	}{
		{"density branch", scatterStrategy("g", "1"), []int{0, 1, 4, 5, 6, 7, 8, 9, 10},
			[]string{"q4", "q5", "q6", "q7", "q0", "q8", "q9", "q10", "q1"}},
		{"update-shape branch", scatterStrategy("g", "1"), []int{0, 1, 2, 4, 5, 6},
			[]string{"q0", "q4", "q5", "q1", "q6", "q2"}},
		{"empty value matches absent labels", scatterStrategy("g", ""), []int{0, 1, 2, 3, 4, 5, 6, 7},
			[]string{"q0", "q1", "q2", "q4", "q5", "q3", "q6", "q7"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cands := pick(all, c.cands...)
			for _, in := range [][]*model.Pod{cands, reversed(cands)} {
				got := SortForUpdate(in, UpdateOptions{RollingUpdate: c.terms, AllPods: all})
				assertOrder(t, got, c.want...)
			}
		})
	}
}

func example16() []*model.Pod {
	now := t0
	ago := func(s int) time.Time { return now.Add(-time.Duration(s) * time.Second) }
	return []*model.Pod{
		newPod("p-a", onNode("n1"), readyAt(ago(900)), created(ago(990)), labels("zone", "z1")),
		newPod("p-b", onNode("n1"), readyAt(ago(800)), created(ago(980)), labels("zone", "z1", "canary", "true")),
		newPod("p-c", onNode("n2"), notReady(), created(ago(970)), labels("zone", "z2")),
		newPod("p-d", unscheduled(), phase(model.PodPending), notReady(), created(ago(960)), labels("zone", "z2")),
		newPod("p-e", onNode("n2"), readyAt(ago(850)), created(ago(950)), labels("zone", "z1"), state(model.StatePreparingUpdate)),
		newPod("p-f", onNode("n3"), readyAt(ago(900)), created(ago(995)), labels("zone", "z2", "canary", "true")),
	}
}

func TestExample16Pipeline(t *testing.T) {
	prio := &model.UpdatePriorityStrategy{WeightPriority: []model.UpdatePriorityWeightTerm{
		{Weight: 50, MatchSelector: model.LabelSelector{MatchLabels: map[string]string{"canary": "true"}}}}}
	scat := []model.ScatterTerm{{Key: "zone", Value: "z1"}}
	normalE := func() []*model.Pod {
		ps := example16()
		state(model.StateNormal)(ps[4])
		return ps
	}
	// Stages 1-3 with p-e in Normal (so step 4 is inert).
	stage := []struct {
		name string
		ru   *model.RollingUpdateStrategy
		want []string
	}{
		{"1 default", nil, []string{"p-d", "p-c", "p-b", "p-e", "p-a", "p-f"}},
		{"2 priority", &model.RollingUpdateStrategy{PriorityStrategy: prio}, []string{"p-b", "p-f", "p-d", "p-c", "p-e", "p-a"}},
		{"3 scatter", &model.RollingUpdateStrategy{PriorityStrategy: prio, ScatterStrategy: scat}, []string{"p-b", "p-f", "p-d", "p-e", "p-c", "p-a"}},
	}
	for _, s := range stage {
		t.Run(s.name, func(t *testing.T) {
			ps := normalE()
			got := SortForUpdate(ps, UpdateOptions{RollingUpdate: s.ru, AllPods: ps})
			assertOrder(t, got, s.want...)
		})
	}
	t.Run("4 PreparingUpdate first", func(t *testing.T) {
		ps := example16()
		for _, in := range [][]*model.Pod{ps, reversed(ps)} {
			got := SortForUpdate(in, UpdateOptions{RollingUpdate: &model.RollingUpdateStrategy{PriorityStrategy: prio, ScatterStrategy: scat}, AllPods: ps})
			assertOrder(t, got, "p-e", "p-b", "p-f", "p-d", "p-c", "p-a")
			want := map[string]string{"p-e": WhyPreparingUpdate, "p-b": WhyReadyTime, "p-f": WhyPriority,
				"p-d": WhyUnscheduled, "p-c": "scatter:zone=z1", "p-a": WhyLast}
			if d := cmp.Diff(want, whys(got)); d != "" {
				t.Fatal(d)
			}
		}
	})
	t.Run("rollingUpdate nil skips priority and scatter, not step 4", func(t *testing.T) {
		got := SortForUpdate(example16(), UpdateOptions{})
		assertOrder(t, got, "p-e", "p-d", "p-c", "p-b", "p-a", "p-f")
	})
}

func TestPreparingUpdatePass(t *testing.T) {
	pods := []*model.Pod{
		newPod("a", state(model.StatePreparingUpdate), notReady()),
		newPod("b", notReady()),
		newPod("c", state(model.StatePreparingUpdate)),
		newPod("d"),
		newPod("e", state(model.StatePreparingUpdate)),
	}
	got := SortForUpdate(pods, UpdateOptions{})
	// Default order a b c d e; stable partition: a c e, then b d.
	assertOrder(t, got, "a", "c", "e", "b", "d")
	// a was already first: not moved, explained by the default key.
	want := map[string]string{"a": WhyNotReady, "c": WhyPreparingUpdate, "e": WhyPreparingUpdate, "b": WhyNotReady, "d": WhyLast}
	if d := cmp.Diff(want, whys(got)); d != "" {
		t.Fatal(d)
	}
}

func TestScatterDetails(t *testing.T) {
	mk := func(n int, lab func(i int) []string) []*model.Pod {
		var ps []*model.Pod
		for i := 0; i < n; i++ {
			ps = append(ps, newPod("s"+itoa(i), onlyLabels(lab(i)...)))
		}
		return ps
	}
	t.Run("one matching candidate: unchanged", func(t *testing.T) {
		ps := mk(4, func(i int) []string {
			if i == 3 {
				return []string{"k", "v"}
			}
			return nil
		})
		got := SortForUpdate(ps, UpdateOptions{RollingUpdate: scatterStrategy("k", "v"), AllPods: ps})
		assertOrder(t, got, "s0", "s1", "s2", "s3")
		if got[0].Why != WhyName {
			t.Fatal(got[0].Why)
		}
	})
	t.Run("one non-matching candidate: unchanged", func(t *testing.T) {
		ps := mk(4, func(i int) []string {
			if i < 3 {
				return []string{"k", "v"}
			}
			return nil
		})
		got := SortForUpdate(ps, UpdateOptions{RollingUpdate: scatterStrategy("k", "v"), AllPods: ps})
		assertOrder(t, got, "s0", "s1", "s2", "s3")
	})
	t.Run("terms nobody carries are dropped when there are two or more", func(t *testing.T) {
		// {g, ""} alone matches the pods without g; with a second term it is
		// dropped (no candidate has g present with value "").
		ps := mk(6, func(i int) []string {
			if i < 2 {
				return []string{"g", "1"}
			}
			return nil
		})
		alone := SortForUpdate(ps, UpdateOptions{RollingUpdate: scatterStrategy("g", ""), AllPods: ps})
		both := SortForUpdate(ps, UpdateOptions{RollingUpdate: scatterStrategy("g", "", "nobody", "x"), AllPods: ps})
		if slices.Equal(names(alone), names(both)) {
			t.Fatalf("dropping the term must matter here: %v", names(alone))
		}
		assertOrder(t, both, "s0", "s1", "s2", "s3", "s4", "s5")
	})
	t.Run("equal counts keep the strategy order", func(t *testing.T) {
		ps := mk(8, func(i int) []string {
			l := []string{}
			if i%2 == 0 {
				l = append(l, "x", "1")
			}
			if i < 4 {
				l = append(l, "y", "1")
			}
			return l
		})
		xy := SortForUpdate(ps, UpdateOptions{RollingUpdate: scatterStrategy("x", "1", "y", "1"), AllPods: ps})
		yx := SortForUpdate(ps, UpdateOptions{RollingUpdate: scatterStrategy("y", "1", "x", "1"), AllPods: ps})
		// With equal counts, x first then y for xy: the final pass is y.
		if xy[len(xy)-1].Why != "scatter:y=1" || yx[len(yx)-1].Why != "scatter:x=1" {
			t.Fatalf("last pass: %q %q", xy[len(xy)-1].Why, yx[len(yx)-1].Why)
		}
		if slices.Equal(names(xy), names(yx)) {
			t.Fatal("term order must matter in this case")
		}
	})
	t.Run("AllPods nil counts the candidates; missing candidates do not panic", func(t *testing.T) {
		ps := example15()
		ru := scatterStrategy("g", "1")
		for mask := 0; mask < 1<<len(ps); mask++ {
			var cands []*model.Pod
			for i, p := range ps {
				if mask&(1<<i) != 0 {
					cands = append(cands, p)
				}
			}
			a := SortForUpdate(cands, UpdateOptions{RollingUpdate: ru})
			b := SortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: cands})
			if !slices.Equal(names(a), names(b)) {
				t.Fatalf("%v vs %v", names(a), names(b))
			}
			c := SortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: pick(ps, 11, 10, 0)})
			if len(c) != len(cands) {
				t.Fatal(len(c))
			}
		}
	})
}

// D5: the density test divides in binary32. With tM=4, tU=8388609, uM=3,
// uU=6291457 the exact quotients are 2097152.25 < 2097152.33, but both round
// to 2097152.25 in binary32, so the update shape is used.
func TestScatterShapeBinary32(t *testing.T) {
	g, ms, us, head := scatterShape(4, 8388609, 3, 6291457)
	if g != 3 || ms != 1 || us != 2097152 || head != 0 {
		t.Fatalf("got (%d,%d,%d,%d)", g, ms, us, head)
	}
	// Plain density branch (Example 15): shape(3,8) sizes, groupNum 1, uHead 4.
	g, ms, us, head = scatterShape(3, 8, 1, 7)
	if g != 1 || ms != 1 || us != 3 || head != 4 {
		t.Fatalf("got (%d,%d,%d,%d)", g, ms, us, head)
	}
	// Rounding halves away from zero: shape(2,5) -> uSize round(2.5) = 3.
	if g, ms, us := shape(2, 5); g != 2 || ms != 1 || us != 3 {
		t.Fatalf("shape(2,5) = %d,%d,%d", g, ms, us)
	}
	if g, ms, us := shape(2, 3); g != 2 || ms != 1 || us != 2 {
		t.Fatalf("shape(2,3) = %d,%d,%d", g, ms, us)
	}
}

func TestSortForUpdateInputHandling(t *testing.T) {
	if got := SortForUpdate(nil, UpdateOptions{}); got == nil || len(got) != 0 {
		t.Fatal(got)
	}
	a, b := newPod("a"), newPod("b")
	in := []*model.Pod{nil, b, a}
	before := slices.Clone(in)
	all := []*model.Pod{b, nil, a}
	allBefore := slices.Clone(all)
	got := SortForUpdate(in, UpdateOptions{RollingUpdate: scatterStrategy("x", ""), AllPods: all})
	assertOrder(t, got, "a", "b")
	if !slices.Equal(in, before) || !slices.Equal(all, allBefore) {
		t.Fatal("input modified")
	}
	bare := SortForUpdate([]*model.Pod{{Name: "bare"}, b}, UpdateOptions{RollingUpdate: weightStrategy()})
	assertOrder(t, bare, "bare", "b")
}
