package ordering

import (
	"reflect"
	"slices"
	"testing"

	"github.com/clonecore/cloneset/model"
	"pgregory.net/rapid"
)

// readAll returns ReadKeys of every pod (zero keys for nil entries).
func readAll(pods []*model.Pod) []PodKeys {
	keys := make([]PodKeys, len(pods))
	for i, p := range pods {
		if p != nil {
			keys[i] = ReadKeys(p)
		}
	}
	return keys
}

// candIdx returns 0, 1, ..., n-1.
func candIdx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestPropPodKeys checks that the orders computed from keys read once
// (DeletionOptions.Keys, UpdateOptions.Keys) are those computed from the
// pods: the whole deletion ranking (reasons and spread ranks included),
// every prefix of FirstForDeletion, and the update order with its reasons,
// the keys given in order or by index (KeyIndex), with or without a
// DeletionScratch reused from ranking to ranking; keys of the wrong length
// are ignored.
func TestPropPodKeys(t *testing.T) {
	scratch := &DeletionScratch{} // shared by every test case
	updScratch := &UpdateScratch{}
	rapid.Check(t, func(t *rapid.T) {
		pods := genGroupWithDuplicates(t, 40)
		if rapid.Bool().Draw(t, "nils") {
			pods = slices.Insert(slices.Clone(pods), rapid.IntRange(0, len(pods)).Draw(t, "nil-at"), nil)
		}
		opts := genDeletionOptions(t)
		keyed := opts
		keyed.Keys = readAll(pods)
		want := RankForDeletion(pods, opts)
		if got := RankForDeletion(pods, keyed); !reflect.DeepEqual(got, want) {
			t.Fatalf("deletion ranking from keys:\n got %v\nwant %v", names(got), names(want))
		}
		wrong := opts
		wrong.Keys = keyed.Keys[:len(keyed.Keys)/2]
		if len(wrong.Keys) != len(pods) {
			if got := RankForDeletion(pods, wrong); !reflect.DeepEqual(got, want) {
				t.Fatal("keys of another length were not ignored")
			}
		}
		// The same keys by index (DeletionOptions.KeyIndex) into a longer,
		// reversed array.
		indexed := opts
		indexed.Keys = make([]PodKeys, len(pods)+2)
		indexed.KeyIndex = make([]int, len(pods))
		for i := range pods {
			j := len(indexed.Keys) - 1 - i
			indexed.Keys[j], indexed.KeyIndex[i] = keyed.Keys[i], j
		}
		if got := RankForDeletion(pods, indexed); !reflect.DeepEqual(got, want) {
			t.Fatalf("deletion ranking from keys by index:\n got %v\nwant %v", names(got), names(want))
		}
		// By index into the keys of the non-nil pods only (shorter than
		// the group when it holds a nil).
		compact := opts
		compact.KeyIndex = make([]int, len(pods))
		for i, p := range pods {
			if p != nil {
				compact.KeyIndex[i] = len(compact.Keys)
				compact.Keys = append(compact.Keys, keyed.Keys[i])
			}
		}
		if got := RankForDeletion(pods, compact); !reflect.DeepEqual(got, want) {
			t.Fatalf("deletion ranking from the keys of the non-nil pods:\n got %v\nwant %v", names(got), names(want))
		}
		// With node ids (PodKeys.SetNodeID, DeletionOptions.NodeNames) on
		// some of the keys, the others without, by index, with and
		// without a scratch.
		withIDs := indexed
		withIDs.Keys = slices.Clone(indexed.Keys)
		idOf := map[string]int32{}
		for _, j := range indexed.KeyIndex {
			n := withIDs.Keys[j].Node()
			if n == "" || !rapid.Bool().Draw(t, "nodeID") {
				continue
			}
			id, ok := idOf[n]
			if !ok {
				id = int32(len(withIDs.NodeNames))
				idOf[n] = id
				withIDs.NodeNames = append(withIDs.NodeNames, n)
			}
			withIDs.Keys[j].SetNodeID(id)
		}
		if got := RankForDeletion(pods, withIDs); !reflect.DeepEqual(got, want) {
			t.Fatalf("deletion ranking from keys with node ids:\n got %v\nwant %v", names(got), names(want))
		}
		withIDs.Scratch = scratch
		if got := RankForDeletion(pods, withIDs); !reflect.DeepEqual(got, want) {
			t.Fatalf("deletion ranking from keys with node ids and a scratch:\n got %v\nwant %v", names(got), names(want))
		}
		withScratch, indexedScratch := opts, indexed
		withScratch.Scratch, indexedScratch.Scratch = scratch, scratch
		if got := RankForDeletion(pods, withScratch); !reflect.DeepEqual(got, want) {
			t.Fatalf("deletion ranking with a scratch:\n got %v\nwant %v", names(got), names(want))
		}
		for k := 0; k <= len(want); k++ {
			if got, w := FirstForDeletion(pods, keyed, k), FirstForDeletion(pods, opts, k); !slices.Equal(got, w) {
				t.Fatalf("FirstForDeletion k=%d from keys:\n got %v\nwant %v", k, podNames(got), podNames(w))
			}
			if got, w := FirstForDeletion(pods, indexed, k), FirstForDeletion(pods, opts, k); !slices.Equal(got, w) {
				t.Fatalf("FirstForDeletion k=%d from keys by index:\n got %v\nwant %v", k, podNames(got), podNames(w))
			}
			if got, w := FirstForDeletion(pods, indexedScratch, k), FirstForDeletion(pods, opts, k); !slices.Equal(got, w) {
				t.Fatalf("FirstForDeletion k=%d from keys by index with a scratch:\n got %v\nwant %v", k, podNames(got), podNames(w))
			}
		}
		ru := genRollingUpdate(t)
		var cands []*model.Pod
		var candAt []int // index in pods of each candidate
		for i, p := range pods {
			if rapid.IntRange(0, 3).Draw(t, "cand") > 0 {
				cands = append(cands, p)
				candAt = append(candAt, i)
			}
		}
		plain := SortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: pods})
		fromKeys := SortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: pods, Keys: readAll(cands)})
		if !reflect.DeepEqual(plain, fromKeys) {
			t.Fatalf("update order from keys:\n got %v\nwant %v", names(fromKeys), names(plain))
		}
		withPriority, allKeys := readAll(cands), readAll(pods)
		if ru != nil {
			for i, p := range cands {
				if p != nil {
					withPriority[i].ReadPriority(ru.PriorityStrategy, p)
					withPriority[i].ReadScatter(ru.ScatterStrategy, p)
				}
			}
			for i, p := range pods {
				if p != nil {
					allKeys[i].ReadScatter(ru.ScatterStrategy, p)
				}
			}
		}
		fromPriority := SortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: pods, Keys: withPriority, AllKeys: allKeys})
		if !reflect.DeepEqual(plain, fromPriority) {
			t.Fatalf("update order from keys with priorities and scatter flags:\n got %v\nwant %v", names(fromPriority), names(plain))
		}
		// Keys by index (UpdateOptions.KeyIndex) into the keys of every pod.
		if ru != nil {
			for i, p := range pods {
				if p != nil {
					allKeys[i].ReadPriority(ru.PriorityStrategy, p)
				}
			}
		}
		fromIndex := SortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: pods, Keys: allKeys, KeyIndex: candAt, AllKeys: allKeys})
		if !reflect.DeepEqual(plain, fromIndex) {
			t.Fatalf("update order from keys by index:\n got %v\nwant %v", names(fromIndex), names(plain))
		}
		// Every key by index (KeyIndex, AllKeyIndex) into a reversed array.
		reversed := make([]PodKeys, len(allKeys)+1)
		allAt := make([]int, len(allKeys))
		for i := range allKeys {
			allAt[i] = len(reversed) - 1 - i
			reversed[allAt[i]] = allKeys[i]
		}
		revAt := make([]int, len(candAt))
		for j, i := range candAt {
			revAt[j] = allAt[i]
		}
		fromIndex = SortForUpdate(cands, UpdateOptions{RollingUpdate: ru, AllPods: pods, Keys: reversed, KeyIndex: revAt, AllKeys: reversed, AllKeyIndex: allAt})
		if !reflect.DeepEqual(plain, fromIndex) {
			t.Fatalf("update order from keys by index:\n got %v\nwant %v", names(fromIndex), names(plain))
		}
		// With an UpdateScratch shared by every test case (its order hint
		// then comes from other worlds), twice: the candidates as drawn, then
		// a shuffled subset of them (some twice), whose hint is the first
		// sort's order.
		uopts := UpdateOptions{RollingUpdate: ru, AllPods: pods, Keys: reversed, KeyIndex: revAt, AllKeys: reversed, AllKeyIndex: allAt, Scratch: updScratch}
		if got := SortForUpdate(cands, uopts); !reflect.DeepEqual(plain, got) {
			t.Fatalf("update order with a scratch:\n got %v\nwant %v", names(got), names(plain))
		}
		var again []*model.Pod
		var againAt []int
		for _, j := range rapid.Permutation(candIdx(len(cands))).Draw(t, "again") {
			switch rapid.IntRange(0, 5).Draw(t, "keep") {
			case 0: // left out
			case 1: // listed twice (the same keys by index twice)
				again, againAt = append(again, cands[j], cands[j]), append(againAt, revAt[j], revAt[j])
			default:
				again, againAt = append(again, cands[j]), append(againAt, revAt[j])
			}
		}
		plainAgain := SortForUpdate(again, UpdateOptions{RollingUpdate: ru, AllPods: pods})
		uopts.KeyIndex = againAt
		if got := SortForUpdate(again, uopts); !reflect.DeepEqual(plainAgain, got) {
			t.Fatalf("update order with a scratch, second sort:\n got %v\nwant %v", names(got), names(plainAgain))
		}
	})
}
