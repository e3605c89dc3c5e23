// Index only what queries filter or sort on: the device and the time. Writes pay for two paths,
// and the index shrinks to them.

export const indexingPolicy = {
  indexingMode: "consistent",
  includedPaths: [{ path: "/deviceId/?" }, { path: "/ts/?" }],
  excludedPaths: [{ path: "/*" }],
};
