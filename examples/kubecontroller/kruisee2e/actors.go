package kruisee2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
	// The config maps the custom kubelet's pods wait for: a change looks
	// again at the pods of its namespace that read it.
	configMaps, cmInformer := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "configmaps", metav1.NamespaceAll, fields.Everything()),
		ObjectType:    &corev1.ConfigMap{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { enqueueReaders(store, obj, queue) },
			UpdateFunc: func(_, obj any) { enqueueReaders(store, obj, queue) },
		},
	})
	lookup := func(namespace, name string) (map[string]string, bool) {
		obj, ok, err := configMaps.GetByKey(namespace + "/" + name)
		if err != nil || !ok {
			return nil, false
		}
		return obj.(*corev1.ConfigMap).Data, true
	}
	go informer.RunWithContext(ctx)
	go cmInformer.RunWithContext(ctx)
	go func() { <-ctx.Done(); queue.ShutDown() }()
	agent := &nodeAgent{started: map[string]uint64{}}
	lastSync := map[string]time.Time{} // the custom kubelet's pod workers
	for {
		key, shutdown := queue.Get()
		if shutdown {
			return
		}
		obj, exists, err := store.GetByKey(key)
		if err == nil && exists {
			again, err := standIn(ctx, client, obj.(*corev1.Pod), agent, aliases, lookup, lastSync)
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

// enqueueReaders queues the pods of the config map's namespace whose
// containers read it.
func enqueueReaders(pods cache.Store, obj any, queue workqueue.TypedDelayingInterface[string]) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	for _, o := range pods.List() {
		p := o.(*corev1.Pod)
		if p.Namespace != cm.Namespace || !customKubelet(p) {
			continue
		}
		for i := range p.Spec.Containers {
			if slices.ContainsFunc(configMapKeys(&p.Spec.Containers[i]), func(ref [2]string) bool { return ref[0] == cm.Name }) {
				queue.Add(p.Namespace + "/" + p.Name)
				break
			}
		}
	}
}

// standIn is one look at a pod: the node agent, then the kubelet stand-in
// of a pod with hooks. It returns when to look again.
func standIn(ctx context.Context, client kubernetes.Interface, p *corev1.Pod, agent *nodeAgent, aliases map[string]string, configMaps ConfigMaps,
	lastSync map[string]time.Time) (time.Duration, error) {
	pods := client.CoreV1().Pods(p.Namespace)
	if p.DeletionTimestamp != nil {
		return 0, nil
	}
	if customPod(p) && !customKubelet(p) {
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"true"}}}`, controlplane.LabelCustomKubelet)
		_, err := pods.Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
		return 0, err
	}
	now := time.Now()
	key := p.Namespace + "/" + p.Name
	kubelet := customKubelet(p) && p.Spec.NodeName != ""
	if next := relistAfter(lastSync[key]); kubelet && now.Before(next) {
		return next.Sub(now), nil // the pod worker waits for the next relist
	}
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
	if kubelet {
		q := p.DeepCopy()
		q.Status = status
		status, again = kubeletStatus(q, aliases, configMaps, now)
	}
	if kubelet {
		lastSync[key] = now // a sync, whether it writes or not
	}
	if apiequality.Semantic.DeepEqual(status, p.Status) {
		return again, nil
	}
	q := p.DeepCopy()
	q.Status = status
	_, err := pods.UpdateStatus(ctx, q, metav1.UpdateOptions{})
	if kubelet && err == nil {
		lastSync[key] = syncEnd(p, status, now)
	}
	return again, err
}
