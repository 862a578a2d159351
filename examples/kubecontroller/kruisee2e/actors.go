package kruisee2e

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/clonecore/cloneset/examples/kubecontroller/controlplane"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// StandIns plays, until ctx ends, the parts of the nodes that kwok's stages
// do not: the kubelet of pods with postStart hooks (kubelet.go) and kruise's
// node agent for env from metadata (nodeagent.go), for the pods of every
// namespace. Errors go to report (never nil); the pod is looked at again
// after a second.
func StandIns(ctx context.Context, client kubernetes.Interface, aliases map[string]string, report func(error)) {
	queue := workqueue.NewTypedDelayingQueue[string]()
	defer queue.ShutDown()
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	lw := cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "pods", metav1.NamespaceAll, fields.Everything())
	store, informer := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: lw,
		ObjectType:    &corev1.Pod{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    enqueue,
			UpdateFunc: func(_, obj any) { enqueue(obj) },
		},
	})
	go informer.RunWithContext(ctx)
	go func() { <-ctx.Done(); queue.ShutDown() }()
	agent := &nodeAgent{started: map[string]uint64{}}
	for {
		key, shutdown := queue.Get()
		if shutdown {
			return
		}
		obj, exists, err := store.GetByKey(key)
		if err == nil && exists {
			again, err := standIn(ctx, client, obj.(*corev1.Pod), agent, aliases)
			switch {
			case err != nil && ctx.Err() == nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err):
				report(fmt.Errorf("stand-ins: pod %s: %w", key, err))
				queue.AddAfter(key, time.Second)
			case err != nil:
				queue.AddAfter(key, 100*time.Millisecond)
			case again > 0:
				queue.AddAfter(key, again)
			}
		}
		queue.Done(key)
	}
}

// standIn is one look at a pod: the node agent, then the kubelet stand-in
// of a pod with hooks. It returns when to look again.
func standIn(ctx context.Context, client kubernetes.Interface, p *corev1.Pod, agent *nodeAgent, aliases map[string]string) (time.Duration, error) {
	pods := client.CoreV1().Pods(p.Namespace)
	if p.DeletionTimestamp != nil {
		return 0, nil
	}
	if hookedPod(p) && !customKubelet(p) {
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, controlplane.LabelCustomKubelet)
		_, err := pods.Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
		return 0, err
	}
	now := time.Now()
	res := agent.sync(p, now)
	if res.annotation != "" {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": p.ResourceVersion,
			"annotations":     map[string]string{runtimeContainersMeta: res.annotation},
		}})
		_, err := pods.Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			return 0, err
		}
		return 0, nil // the next event brings the pod back
	}
	status := p.Status
	if res.status != nil {
		status = *res.status
	}
	var again time.Duration
	if customKubelet(p) && p.Spec.NodeName != "" {
		q := p.DeepCopy()
		q.Status = status
		status, again = kubeletStatus(q, aliases, now)
	}
	if apiequality.Semantic.DeepEqual(status, p.Status) {
		return again, nil
	}
	q := p.DeepCopy()
	q.Status = status
	_, err := pods.UpdateStatus(ctx, q, metav1.UpdateOptions{})
	return again, err
}
