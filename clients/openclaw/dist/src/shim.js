// What every part of the shim is given by register(): the host's api and the way to the sidecar.
export {};
