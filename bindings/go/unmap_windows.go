package abloom

// On Windows a mapped file cannot be replaced (Save over it) or deleted while any view of it is
// mapped, and a closed filter's view lives until its cleanup runs (filter.go, handle). So Close
// of a mapped filter collects at once and waits for the cleanup, as on other systems only past
// releaseAtBytes: after Close the file is free, as a Windows program expects of a closed file.
const closeUnmapsAtOnce = true
