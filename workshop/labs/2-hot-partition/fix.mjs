// Keyed by device: the big tenant's readings spread over all its devices' logical partitions,
// and so over every physical partition. (A tenant's dashboard query now fans out: lab 1 shows
// the synthetic key that serves both.)

export const partitionKey = { paths: ["/deviceId"] };

export function keyOf(reading) {
  return reading.deviceId;
}
