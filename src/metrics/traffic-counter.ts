/** Requests the API has answered; the pacer reads it, the routes count. */
export class TrafficCounter {
  served = 0;
}
