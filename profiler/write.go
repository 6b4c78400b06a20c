package main

import "vbench/internal/profile"

// writeProfile writes profile.json and profile.pb.gz atomically into dir.
func writeProfile(dir string, p *profile.Profile) error { return profile.WriteDir(dir, p) }
