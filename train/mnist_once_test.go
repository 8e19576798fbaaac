package train

import (
	"context"
	"sync"

	"github.com/normtop/normtop/datasets"
)

// The built-in MNIST (DataPath "") is read once for every run of the
// package's tests: about 40 runs train on it, and under -race each read
// costs about 2 s of CPU (the race detector shadows the 55 MB it reads).
// The runners only read the set (the batchers shuffle their own order),
// so sharing it changes no run; a read of an IDX directory still goes to
// the file system each time, and the GoMNIST read ignores ctx either way.
func init() {
	read := loadImages
	var (
		once sync.Once
		imgs *datasets.Images
		err  error
	)
	loadImages = func(ctx context.Context, dir string) (*datasets.Images, error) {
		if dir != "" {
			return read(ctx, dir)
		}
		once.Do(func() { imgs, err = read(context.Background(), "") })
		return imgs, err
	}
}
