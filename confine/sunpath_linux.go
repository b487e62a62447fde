package confine

// sunPath is the size of a UNIX socket address's path (sun_path).
const sunPath = 108
