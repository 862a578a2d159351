package ordering

// Cross-check against the real controller's rankings in the repository's copy
// of the conformance corpus, testdata/conformance (rank-deletion,
// rank-deletion-spread, rank-update), at the package level: a tiny decoder maps
// only the fields the rankings read, so a ranking regression shows here without
// the loader. (cmd/clonesetplan replays the same cases through the CLI.)

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clonecore/cloneset/model"
	"gopkg.in/yaml.v3"
)

var conformanceDir = func() string {
	if d := os.Getenv("CLONESET_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "testdata", "conformance")
}()

type cfMeta struct {
	Name              string            `yaml:"name"`
	Labels            map[string]string `yaml:"labels"`
	Annotations       map[string]string `yaml:"annotations"`
	CreationTimestamp string            `yaml:"creationTimestamp"`
	DeletionTimestamp string            `yaml:"deletionTimestamp"`
}

type cfContainer struct {
	Name          string `yaml:"name"`
	RestartPolicy string `yaml:"restartPolicy"`
}

type cfStatus struct {
	Name         string `yaml:"name"`
	RestartCount int32  `yaml:"restartCount"`
}

type cfSelector struct {
	MatchLabels      map[string]string `yaml:"matchLabels"`
	MatchExpressions []struct {
		Key      string   `yaml:"key"`
		Operator string   `yaml:"operator"`
		Values   []string `yaml:"values"`
	} `yaml:"matchExpressions"`
}

type cfDoc struct {
	Kind     string `yaml:"kind"`
	Now      string `yaml:"now"`
	Metadata cfMeta `yaml:"metadata"`
	Spec     struct {
		// Pod
		NodeName       string        `yaml:"nodeName"`
		InitContainers []cfContainer `yaml:"initContainers"`
		// CloneSet
		MinReadySeconds int32 `yaml:"minReadySeconds"`
		Template        struct {
			Spec struct {
				TopologySpreadConstraints []struct {
					TopologyKey string `yaml:"topologyKey"`
				} `yaml:"topologySpreadConstraints"`
			} `yaml:"spec"`
		} `yaml:"template"`
		UpdateStrategy struct {
			RollingUpdate *struct {
				PriorityStrategy *struct {
					WeightPriority []struct {
						Weight        int32      `yaml:"weight"`
						MatchSelector cfSelector `yaml:"matchSelector"`
					} `yaml:"weightPriority"`
					OrderPriority []struct {
						OrderedKey string `yaml:"orderedKey"`
					} `yaml:"orderPriority"`
				} `yaml:"priorityStrategy"`
				ScatterStrategy []struct {
					Key   string `yaml:"key"`
					Value string `yaml:"value"`
				} `yaml:"scatterStrategy"`
			} `yaml:"rollingUpdate"`
		} `yaml:"updateStrategy"`
	} `yaml:"spec"`
	Status struct {
		// Pod
		Phase      string `yaml:"phase"`
		Conditions []struct {
			Type               string `yaml:"type"`
			Status             string `yaml:"status"`
			LastTransitionTime string `yaml:"lastTransitionTime"`
		} `yaml:"conditions"`
		ContainerStatuses     []cfStatus `yaml:"containerStatuses"`
		InitContainerStatuses []cfStatus `yaml:"initContainerStatuses"`
		// CloneSet
		UpdateRevision string `yaml:"updateRevision"`
	} `yaml:"status"`
}

type cfWorld struct {
	now            time.Time
	minReady       int32
	topologyKeys   []string
	rollingUpdate  *model.RollingUpdateStrategy
	updateRevision string
	pods           []*model.Pod
	nodes          map[string]*model.Node
}

func parseTime(t *testing.T, s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return v
}

func loadWorld(t *testing.T, path string) *cfWorld {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := &cfWorld{nodes: map[string]*model.Node{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var d cfDoc
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch d.Kind {
		case "Scenario":
			w.now = parseTime(t, d.Now)
		case "CloneSet":
			w.minReady = d.Spec.MinReadySeconds
			w.updateRevision = d.Status.UpdateRevision
			for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
				w.topologyKeys = append(w.topologyKeys, c.TopologyKey)
			}
			if ru := d.Spec.UpdateStrategy.RollingUpdate; ru != nil {
				w.rollingUpdate = &model.RollingUpdateStrategy{}
				if ps := ru.PriorityStrategy; ps != nil {
					mps := &model.UpdatePriorityStrategy{}
					for _, wp := range ps.WeightPriority {
						sel := model.LabelSelector{MatchLabels: wp.MatchSelector.MatchLabels}
						for _, e := range wp.MatchSelector.MatchExpressions {
							sel.MatchExpressions = append(sel.MatchExpressions, model.LabelSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: e.Values})
						}
						mps.WeightPriority = append(mps.WeightPriority, model.UpdatePriorityWeightTerm{Weight: wp.Weight, MatchSelector: sel})
					}
					for _, op := range ps.OrderPriority {
						mps.OrderPriority = append(mps.OrderPriority, model.UpdatePriorityOrderTerm{OrderedKey: op.OrderedKey})
					}
					w.rollingUpdate.PriorityStrategy = mps
				}
				for _, s := range ru.ScatterStrategy {
					w.rollingUpdate.ScatterStrategy = append(w.rollingUpdate.ScatterStrategy, model.ScatterTerm{Key: s.Key, Value: s.Value})
				}
			}
		case "Node":
			w.nodes[d.Metadata.Name] = &model.Node{Name: d.Metadata.Name, Labels: d.Metadata.Labels}
		case "Pod":
			p := &model.Pod{
				Name:              d.Metadata.Name,
				Labels:            d.Metadata.Labels,
				Annotations:       d.Metadata.Annotations,
				CreationTimestamp: parseTime(t, d.Metadata.CreationTimestamp),
				DeletionTimestamp: parseTime(t, d.Metadata.DeletionTimestamp),
				Spec:              model.PodSpec{NodeName: d.Spec.NodeName},
				Status:            model.PodStatus{Phase: d.Status.Phase},
			}
			for _, c := range d.Spec.InitContainers {
				p.Spec.InitContainers = append(p.Spec.InitContainers, model.Container{Name: c.Name, RestartPolicy: c.RestartPolicy})
			}
			for _, c := range d.Status.Conditions {
				p.Status.Conditions = append(p.Status.Conditions, model.PodCondition{Type: c.Type, Status: c.Status, LastTransitionTime: parseTime(t, c.LastTransitionTime)})
			}
			for _, s := range d.Status.ContainerStatuses {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, model.ContainerStatus{Name: s.Name, RestartCount: s.RestartCount})
			}
			for _, s := range d.Status.InitContainerStatuses {
				p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, model.ContainerStatus{Name: s.Name, RestartCount: s.RestartCount})
			}
			w.pods = append(w.pods, p)
		}
	}
	return w
}

func loadExpected(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		Rank []string `json:"rank"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	return e.Rank
}

func conformanceCases(t *testing.T, folder string) []string {
	files, _ := filepath.Glob(filepath.Join(conformanceDir, folder, "*.yaml"))
	if len(files) == 0 {
		t.Fatalf("no conformance corpus in %s", filepath.Join(conformanceDir, folder))
	}
	return files
}

func activePods(pods []*model.Pod) []*model.Pod {
	var out []*model.Pod
	for _, p := range pods {
		if p.IsActive() {
			out = append(out, p)
		}
	}
	return out
}

func TestConformanceRankDeletion(t *testing.T) {
	for _, folder := range []string{"rank-deletion", "rank-deletion-spread"} {
		for _, f := range conformanceCases(t, folder) {
			name := folder + "/" + filepath.Base(f)
			t.Run(name, func(t *testing.T) {
				w := loadWorld(t, f)
				want := loadExpected(t, strings.TrimSuffix(f, ".yaml")+".expect.json")
				got := RankForDeletion(activePods(w.pods), DeletionOptions{
					MinReadySeconds: w.minReady, Now: w.now, TopologyKeys: w.topologyKeys, Nodes: w.nodes,
				})
				if !slices.Equal(names(got), want) {
					t.Errorf("got  %v\nwant %v", names(got), want)
				}
			})
		}
	}
}

// updateCandidates is the forward-update candidate rule of 2.5: active pods
// not at the update revision, never PreparingDelete, Updated always, others
// only when not in an in-place grace period.
func updateCandidates(pods []*model.Pod, updateRevision string) []*model.Pod {
	var out []*model.Pod
	for _, p := range activePods(pods) {
		if p.InRevision(updateRevision) {
			continue
		}
		switch p.LifecycleState() {
		case model.StatePreparingDelete:
			continue
		case model.StateUpdated:
		default:
			if p.GraceValue() != "" {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

func TestConformanceRankUpdate(t *testing.T) {
	for _, f := range conformanceCases(t, "rank-update") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w := loadWorld(t, f)
			want := loadExpected(t, strings.TrimSuffix(f, ".yaml")+".expect.json")
			cands := updateCandidates(w.pods, w.updateRevision)
			candNames := podNames(cands)
			slices.Sort(candNames)
			wantSet := slices.Clone(want)
			slices.Sort(wantSet)
			if !slices.Equal(candNames, wantSet) {
				t.Fatalf("candidate set %v, expected ranking holds %v", candNames, wantSet)
			}
			got := SortForUpdate(cands, UpdateOptions{RollingUpdate: w.rollingUpdate, AllPods: activePods(w.pods)})
			if !slices.Equal(names(got), want) {
				t.Errorf("got  %v\nwant %v", names(got), want)
			}
		})
	}
}
