package manifest_test

import (
	"fmt"
	"strings"

	"github.com/clonecore/cloneset/manifest"
)

func ExampleLoad() {
	input := `
apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: sample, namespace: default, uid: u1}
spec:
  replicas: 3
  selector: {matchLabels: {app: sample}}
  template:
    metadata: {labels: {app: sample}}
    spec: {containers: [{name: nginx, image: "nginx:v2"}]}
  updateStrategy: {type: InPlaceIfPossible, maxSurge: 1}
---
apiVersion: v1
kind: Pod
metadata:
  name: sample-a
  labels: {app: sample}
  ownerReferences: [{kind: CloneSet, name: sample, uid: u1, controller: true}]
  creationTimestamp: "2026-01-01T00:00:00Z"
---
apiVersion: v1
kind: Pod
metadata:
  name: web-b
  labels: {app: web}
`
	scn, err := manifest.Load(strings.NewReader(input), "scenario.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	cs := scn.CloneSet
	ru := cs.Spec.UpdateStrategy.RollingUpdate
	fmt.Println(cs.Namespace+"/"+cs.Name, *cs.Spec.Replicas, cs.Spec.UpdateStrategy.Type, ru.PodUpdatePolicy)
	fmt.Println("maxUnavailable", ru.MaxUnavailable, "maxSurge", ru.MaxSurge, "PVC reuse", cs.Spec.ScaleStrategy.EnablePVCReuse)
	fmt.Println("pods", len(scn.Pods), "set aside:", scn.SetAside[0].Name, "-", scn.SetAside[0].Reason)
	fmt.Println("now", scn.Now.Format("2006-01-02T15:04:05Z07:00"))

	_, err = manifest.Load(strings.NewReader(strings.Replace(input, "replicas: 3", "replicas: -1", 1)), "scenario.yaml")
	fmt.Println(err)
	// Output:
	// default/sample 3 RollingUpdate InPlaceIfPossible
	// maxUnavailable 20% maxSurge 1 PVC reuse true
	// pods 1 set aside: web-b - orphan pod not matched by the CloneSet's selector
	// now 2026-01-01T00:00:00Z
	// scenario.yaml:6: CloneSet default/sample: spec.replicas: Invalid value: -1: must be greater than or equal to 0
}
