package manifest

import (
	"strings"
	"testing"

	"github.com/clonecore/cloneset/model"
)

// seedVersion is the API version of a sample file: en-* samples and the
// v1alpha1 tabs of the zh doc are v1alpha1, the rest of the zh doc v1beta1.
func seedVersion(name string) string {
	if strings.HasPrefix(name, "en-") || strings.HasPrefix(name, "zh-v1alpha1-") {
		return model.APIVersionV1alpha1
	}
	return model.APIVersionV1beta1
}

// checkSeedDefaults checks the per-version defaults and conversion every
// sample goes through (LSV 4.1, 5.2).
func checkSeedDefaults(t *testing.T, name string, cs *model.CloneSet) {
	t.Helper()
	if cs.APIVersion != seedVersion(name) {
		t.Fatalf("apiVersion = %s, want %s", cs.APIVersion, seedVersion(name))
	}
	if cs.Namespace != "default" || cs.Spec.Replicas == nil || *cs.Spec.RevisionHistoryLimit != 10 {
		t.Errorf("namespace %q replicas %v revisionHistoryLimit %v", cs.Namespace, cs.Spec.Replicas, cs.Spec.RevisionHistoryLimit)
	}
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	if cs.Spec.UpdateStrategy.Type != model.UpdateStrategyRollingUpdate || ru == nil || ru.Partition == nil || ru.MaxUnavailable == nil || ru.MaxSurge == nil || ru.PodUpdatePolicy == "" {
		t.Fatalf("updateStrategy not defaulted: %+v", cs.Spec.UpdateStrategy)
	}
	if cs.APIVersion == model.APIVersionV1alpha1 {
		if cs.V1alpha1 == nil || cs.Spec.ScaleStrategy.EnablePVCReuse == cs.V1alpha1.DisablePVCReuse {
			t.Errorf("v1alpha1 PVC reuse: %+v / %+v", cs.V1alpha1, cs.Spec.ScaleStrategy)
		}
	} else if cs.V1alpha1 != nil {
		t.Errorf("v1beta1 object with v1alpha1 facts %+v", cs.V1alpha1)
	}
}

func wantReplicas(n int32) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		t.Helper()
		if got := *s.CloneSet.Spec.Replicas; got != n {
			t.Errorf("replicas = %d, want %d", got, n)
		}
	}
}

func all(checks ...func(*testing.T, *model.Scenario)) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		t.Helper()
		for _, c := range checks {
			c(t, s)
		}
	}
}

func checkIntro(t *testing.T, s *model.Scenario) {
	cs := s.CloneSet
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	if cs.Name != "sample" || cs.Labels["app"] != "sample" || cs.Spec.Selector.MatchLabels["app"] != "sample" ||
		cs.Spec.Template.Spec.Containers[0].Image != "nginx:alpine" || cs.Spec.Template.Labels["app"] != "sample" {
		t.Errorf("cloneset: %+v", cs)
	}
	// Defaults (LSV 4.1): ReCreate, partition 0, maxUnavailable 20%, maxSurge 0.
	if ru.PodUpdatePolicy != model.PolicyReCreate || *ru.Partition != model.FromInt(0) ||
		*ru.MaxUnavailable != model.FromString("20%") || *ru.MaxSurge != model.FromInt(0) || ru.InPlaceUpdateStrategy != nil {
		t.Errorf("defaults: %+v", ru)
	}
	// PVC reuse flips meaning by default (LSV 5.4 item 5).
	if want := cs.APIVersion == model.APIVersionV1alpha1; cs.Spec.ScaleStrategy.EnablePVCReuse != want {
		t.Errorf("enablePVCReuse = %v, want %v", cs.Spec.ScaleStrategy.EnablePVCReuse, want)
	}
}

func checkVCT(image string) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		sp := s.CloneSet.Spec
		if len(sp.VolumeClaimTemplates) != 1 || sp.VolumeClaimTemplates[0].Name != "data-vol" || sp.VolumeClaimTemplates[0].StorageRequest != "20Gi" {
			t.Errorf("volumeClaimTemplates = %+v", sp.VolumeClaimTemplates)
		}
		if sp.Template.Spec.Containers[0].Image != image {
			t.Errorf("image = %s", sp.Template.Spec.Containers[0].Image)
		}
		mounts := sp.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["volumeMounts"].([]any)
		if mounts[0].(map[string]any)["mountPath"] != "/usr/share/nginx/html" {
			t.Errorf("raw mounts = %v", mounts)
		}
	}
}

func checkPVCReuse(enable bool) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		cs := s.CloneSet
		if cs.Spec.ScaleStrategy.EnablePVCReuse != enable {
			t.Errorf("enablePVCReuse = %v, want %v", cs.Spec.ScaleStrategy.EnablePVCReuse, enable)
		}
		if cs.V1alpha1 != nil && !cs.V1alpha1.DisablePVCReuse {
			t.Error("disablePVCReuse not read")
		}
	}
}

func checkPodsToDelete(pods int) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		if got := s.CloneSet.Spec.ScaleStrategy.PodsToDelete; len(got) != 1 || got[0] != "sample-9m4hp" {
			t.Errorf("podsToDelete = %v", got)
		}
		if len(s.Pods) != pods {
			t.Errorf("%d pods, want %d", len(s.Pods), pods)
		}
	}
}

func checkShortHash(t *testing.T, s *model.Scenario) {
	if len(s.Pods) != 1 {
		t.Fatalf("%d pods", len(s.Pods))
	}
	p := s.Pods[0]
	if p.RevisionLabel() != "demo-cloneset-956df7994" || !p.InRevision("956df7994") || !p.InRevision("demo-cloneset-956df7994") {
		t.Errorf("revision label %q", p.RevisionLabel())
	}
}

func checkRateLimit(t *testing.T, s *model.Scenario) {
	sp := s.CloneSet.Spec
	if sp.MinReadySeconds != 60 || sp.ScaleStrategy.MaxUnavailable == nil || *sp.ScaleStrategy.MaxUnavailable != model.FromInt(1) {
		t.Errorf("minReadySeconds %d scale maxUnavailable %v", sp.MinReadySeconds, sp.ScaleStrategy.MaxUnavailable)
	}
}

func checkUpdateTypes(t *testing.T, s *model.Scenario) {
	ru := s.CloneSet.Spec.UpdateStrategy.RollingUpdate
	if ru.PodUpdatePolicy != model.PolicyInPlaceIfPossible || ru.InPlaceUpdateStrategy == nil || ru.InPlaceUpdateStrategy.GracePeriodSeconds != 10 {
		t.Errorf("rollingUpdate = %+v", ru)
	}
	if f := s.CloneSet.V1alpha1; f != nil && f.UpdateStrategyType != "InPlaceIfPossible" {
		t.Errorf("v1alpha1 type = %q", f.UpdateStrategyType)
	}
}

func checkTemplateAndRevision(t *testing.T, s *model.Scenario) {
	cs := s.CloneSet
	st := cs.Status
	if cs.Generation != 1 || st.ObservedGeneration != 1 || st.ReadyReplicas != 5 || st.Replicas != 5 || st.UpdatedReadyReplicas != 5 ||
		st.UpdatedReplicas != 5 || st.CurrentRevision != "sample-d4d4fb5bd" || st.UpdateRevision != "sample-d4d4fb5bd" {
		t.Errorf("status = %+v", st)
	}
}

func checkPartition(t *testing.T, s *model.Scenario) {
	cs := s.CloneSet
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	if *ru.Partition != model.FromInt(3) || cs.Generation != 2 {
		t.Errorf("partition %v generation %d", ru.Partition, cs.Generation)
	}
	if c := cs.Spec.Template.Spec.Containers[0]; c.Image != "nginx:mainline" || cs.Spec.Template.Raw["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["imagePullPolicy"] != "Always" {
		t.Errorf("container %+v", c)
	}
	st := cs.Status
	if st.CurrentRevision != "sample-d4d4fb5bd" || st.UpdateRevision != "sample-56dfb978d4" || st.UpdatedReplicas != 2 || st.UpdatedReadyReplicas != 2 || st.ObservedGeneration != 2 {
		t.Errorf("status = %+v", st)
	}
}

func checkRU(f func(ru *model.RollingUpdateStrategy) bool) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		if ru := s.CloneSet.Spec.UpdateStrategy.RollingUpdate; !f(ru) {
			t.Errorf("rollingUpdate = %+v", ru)
		}
	}
}

var (
	checkMaxUnavailable = checkRU(func(ru *model.RollingUpdateStrategy) bool { return *ru.MaxUnavailable == model.FromString("20%") })
	checkMaxSurge       = checkRU(func(ru *model.RollingUpdateStrategy) bool { return *ru.MaxSurge == model.FromInt(3) })
	checkWeight         = checkRU(func(ru *model.RollingUpdateStrategy) bool {
		w := ru.PriorityStrategy.WeightPriority
		return len(w) == 2 && w[0].Weight == 50 && w[0].MatchSelector.MatchLabels["test-key"] == "foo" &&
			w[1].Weight == 30 && w[1].MatchSelector.MatchLabels["test-key"] == "bar" && ru.PriorityStrategy.OrderPriority == nil
	})
	checkOrder = checkRU(func(ru *model.RollingUpdateStrategy) bool {
		o := ru.PriorityStrategy.OrderPriority
		return len(o) == 1 && o[0].OrderedKey == "some-label-key" && ru.PriorityStrategy.WeightPriority == nil
	})
	checkScatter = checkRU(func(ru *model.RollingUpdateStrategy) bool {
		return len(ru.ScatterStrategy) == 1 && ru.ScatterStrategy[0] == model.ScatterTerm{Key: "foo", Value: "bar"}
	})
	checkPaused = checkRU(func(ru *model.RollingUpdateStrategy) bool { return ru.Paused })
	// Pre-download settings: v1alpha1 annotations and v1beta1 fields give the
	// same internal in-place strategy (LSV 5.2).
	checkPreDownload = checkRU(func(ru *model.RollingUpdateStrategy) bool {
		ip := ru.InPlaceUpdateStrategy
		return ip != nil && ip.GracePeriodSeconds == 0 && ip.ImagePreDownloadParallelism != nil &&
			*ip.ImagePreDownloadParallelism == model.FromInt(10) && ip.ImagePreDownloadMinUpdatedReadyPods != nil &&
			*ip.ImagePreDownloadMinUpdatedReadyPods == 3 && ip.ImagePreDownloadTimeoutSeconds == nil
	})
)

func checkResources(t *testing.T, s *model.Scenario) {
	r := s.CloneSet.Spec.Template.Spec.Containers[0].Resources
	for _, c := range []struct {
		got  model.Quantity
		want string
	}{{r.Requests["cpu"], "2"}, {r.Requests["memory"], "2Gi"}, {r.Limits["cpu"], "4"}, {r.Limits["memory"], "4Gi"}} {
		if c.got.Cmp(model.MustParseQuantity(c.want)) != 0 {
			t.Errorf("resource %v, want %s", c.got, c.want)
		}
	}
}

func checkHooks(markNotReady bool, preNormal bool) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		lc := s.CloneSet.Spec.Lifecycle
		if lc == nil {
			t.Fatal("no lifecycle")
		}
		for name, h := range map[string]*model.LifecycleHook{"preDelete": lc.PreDelete, "inPlaceUpdate": lc.InPlaceUpdate} {
			if h == nil || len(h.FinalizersHandler) != 1 || h.FinalizersHandler[0] != "example.io/unready-blocker" || h.MarkPodNotReady != markNotReady || h.LabelsHandler != nil {
				t.Errorf("%s = %+v", name, h)
			}
		}
		if (lc.PreNormal != nil) != preNormal {
			t.Errorf("preNormal = %+v", lc.PreNormal)
		}
	}
}

func checkCondition(status, reason string) func(*testing.T, *model.Scenario) {
	return func(t *testing.T, s *model.Scenario) {
		c := s.CloneSet.Status.Condition(model.ConditionProgressing)
		if c == nil || c.Status != status || c.Reason != reason {
			t.Errorf("Progressing condition = %+v", c)
		}
	}
}

// seedChecks lists every file of testdata/manifests with its specific checks.
var seedChecks = map[string]func(*testing.T, *model.Scenario){
	"en-intro.yaml":          all(checkIntro, wantReplicas(5)),
	"zh-v1beta1-intro.yaml":  all(checkIntro, wantReplicas(5)),
	"zh-v1alpha1-intro.yaml": all(checkIntro, wantReplicas(5)),

	"en-support-pvcs.yaml":          all(checkVCT("nginx:alpine"), wantReplicas(5)),
	"zh-v1beta1-support-pvcs.yaml":  all(checkVCT("nginx:alpine"), wantReplicas(5)),
	"zh-v1alpha1-support-pvcs.yaml": all(checkVCT("nginx:alpine"), wantReplicas(5)),

	"en-disable-pvc-reuse.yaml":  all(checkPVCReuse(false), wantReplicas(4)),
	"zh-v1beta1-pvc-reuse.yaml":  all(checkPVCReuse(false), wantReplicas(4)),
	"zh-v1alpha1-pvc-reuse.yaml": all(checkPVCReuse(false), wantReplicas(4)),

	"en-vct-changed-recreate.yaml":          all(checkVCT("nginx:v1"), wantReplicas(1)),
	"zh-v1beta1-vct-changed-recreate.yaml":  all(checkVCT("nginx:v1"), wantReplicas(1)),
	"zh-v1alpha1-vct-changed-recreate.yaml": all(checkVCT("nginx:v1"), wantReplicas(1)),

	"en-selective-pod-deletion.yaml":          all(checkPodsToDelete(1), wantReplicas(4)),
	"zh-v1beta1-selective-pod-deletion.yaml":  all(checkPodsToDelete(0), wantReplicas(4)),
	"zh-v1alpha1-selective-pod-deletion.yaml": all(checkPodsToDelete(1), wantReplicas(4)),

	"en-short-hash-label.yaml": checkShortHash,
	"zh-short-hash-label.yaml": checkShortHash,

	"en-scale-up-with-rate-limit.yaml":          checkRateLimit,
	"zh-v1beta1-scale-up-with-rate-limit.yaml":  checkRateLimit,
	"zh-v1alpha1-scale-up-with-rate-limit.yaml": checkRateLimit,

	"en-update-types.yaml":          checkUpdateTypes,
	"zh-v1beta1-update-types.yaml":  checkUpdateTypes,
	"zh-v1alpha1-update-types.yaml": checkUpdateTypes,

	"en-template-and-revision.yaml":          all(checkTemplateAndRevision, wantReplicas(5)),
	"zh-v1beta1-template-and-revision.yaml":  all(checkTemplateAndRevision, wantReplicas(5)),
	"zh-v1alpha1-template-and-revision.yaml": all(checkTemplateAndRevision, wantReplicas(5)),

	"en-partition.yaml":          all(checkPartition, wantReplicas(5)),
	"zh-v1beta1-partition.yaml":  all(checkPartition, wantReplicas(5)),
	"zh-v1alpha1-partition.yaml": all(checkPartition, wantReplicas(5)),

	"en-maxunavailable.yaml":          checkMaxUnavailable,
	"zh-v1beta1-maxunavailable.yaml":  checkMaxUnavailable,
	"zh-v1alpha1-maxunavailable.yaml": checkMaxUnavailable,

	"en-maxsurge.yaml":          checkMaxSurge,
	"zh-v1beta1-maxsurge.yaml":  checkMaxSurge,
	"zh-v1alpha1-maxsurge.yaml": checkMaxSurge,

	"en-priority-weight.yaml":          checkWeight,
	"zh-v1beta1-priority-weight.yaml":  checkWeight,
	"zh-v1alpha1-priority-weight.yaml": checkWeight,

	"en-priority-order.yaml":          checkOrder,
	"zh-v1beta1-priority-order.yaml":  checkOrder,
	"zh-v1alpha1-priority-order.yaml": checkOrder,

	"en-scatter.yaml":          checkScatter,
	"zh-v1beta1-scatter.yaml":  checkScatter,
	"zh-v1alpha1-scatter.yaml": checkScatter,

	"en-paused-update.yaml":          checkPaused,
	"zh-v1beta1-paused-update.yaml":  checkPaused,
	"zh-v1alpha1-paused-update.yaml": checkPaused,

	"en-inplace-resources.yaml":          checkResources,
	"zh-v1beta1-inplace-resources.yaml":  checkResources,
	"zh-v1alpha1-inplace-resources.yaml": checkResources,

	"en-pre-download-image.yaml":          checkPreDownload,
	"zh-v1beta1-pre-download-image.yaml":  checkPreDownload,
	"zh-v1alpha1-pre-download-image.yaml": checkPreDownload,

	"en-lifecycle-hook.yaml":          checkHooks(false, true),
	"zh-v1beta1-lifecycle-hook.yaml":  checkHooks(false, true),
	"zh-v1alpha1-lifecycle-hook.yaml": checkHooks(false, true),

	"en-markpodnotready.yaml": checkHooks(true, false),
	"zh-markpodnotready.yaml": checkHooks(true, false),

	"en-user-controller-logic.yaml":          checkHooks(false, true),
	"zh-v1beta1-user-controller-logic.yaml":  checkHooks(false, true),
	"zh-v1alpha1-user-controller-logic.yaml": checkHooks(false, true),

	"zh-progress-deadline.yaml":            checkCondition("False", "ProgressDeadlineExceeded"),
	"zh-progressing-cloneset.yaml":         checkCondition("True", "CloneSetUpdated"),
	"zh-available-cloneset-partition.yaml": checkCondition("True", "ProgressPartitionAvailable"),
	"zh-available-cloneset.yaml":           checkCondition("True", "CloneSetAvailable"),
	"zh-failed-cloneset.yaml":              checkCondition("False", "ProgressDeadlineExceeded"),
}
