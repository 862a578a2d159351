package manifest_test

import (
	"fmt"
	"strings"

	"github.com/clonecore/cloneset/manifest"
)

func ExampleLoadAll() {
	// A namespace dump: two CloneSets, a Service, their pods interleaved and
	// an orphan pod both selectors match.
	input := `
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: web, namespace: prod, uid: uid-web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.25"}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: api-1
  namespace: prod
  labels: {tier: api}
  ownerReferences: [{kind: CloneSet, name: api, uid: uid-api, controller: true}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: prod}
---
apiVersion: apps.kruise.io/v1beta1
kind: CloneSet
metadata: {name: api, namespace: prod, uid: uid-api}
spec:
  replicas: 1
  selector: {matchLabels: {tier: api}}
  template:
    metadata: {labels: {tier: api}}
    spec: {containers: [{name: api, image: "api:3"}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: prod
  labels: {app: web}
  ownerReferences: [{kind: CloneSet, name: web, uid: uid-web, controller: true}]
---
apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: prod, labels: {app: web, tier: api}}
`
	scns, err := manifest.LoadAll(strings.NewReader(input), "prod.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range scns {
		fmt.Printf("%s/%s: %d pod(s)\n", s.CloneSet.Namespace, s.CloneSet.Name, len(s.Pods))
		for _, a := range s.SetAside {
			fmt.Printf("  %s %s left out: %s\n", a.Kind, a.Name, a.Reason)
		}
	}
	// Output:
	// prod/api: 1 pod(s)
	//   Pod debug left out: claimed by CloneSets prod/api and prod/web (an orphan pod their selectors all match; which one adopts it is a race between their reconciles)
	// prod/web: 1 pod(s)
	//   Pod debug left out: claimed by CloneSets prod/api and prod/web (an orphan pod their selectors all match; which one adopts it is a race between their reconciles)
}
