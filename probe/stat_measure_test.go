package probe

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zk-claims/zk/vault/evidence/measure"
)

// TestStatMatchesMeasure: zk run resamples a probe distribution by
// computing its statistics again (package measure); on the samples
// themselves, unresampled, that gives back what the probe wrote, field by
// field, or a resample would not be the same statistic.
func TestStatMatchesMeasure(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 3, 11, 58} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 100 + 15*r.NormFloat64()
		}
		res := Result{Schema: Schema, Levels: []Level{{Concurrency: 4,
			OutputTokenThroughputPerUser: sampled("tokens/sec/user", "requests completed in the window", xs)}}}
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		e := measure.Read(data, 0, nil)
		if len(e.Sampled) != 1 || e.Sampled[0].Of != "requests completed in the window at concurrency 4" {
			t.Fatalf("n=%d: sampled %+v", n, e.Sampled)
		}
		want := e.Sampled[0].Fields()
		e.Sampled[0].Recompute()
		for k, v := range e.Sampled[0].Fields() {
			if w := want[k].(float64); math.Abs(v.(float64)-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("n=%d: %s = %v recomputed, the probe wrote %v", n, k, v, w)
			}
		}
	}
}
