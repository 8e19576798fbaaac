//go:build !race

package datasets

const raceOn = false
