// Error messages as the service words them, so that users can search for them. Every room that
// refuses a request for one of these reasons uses the same text.
#pragma once

namespace cosmos::engine {

inline constexpr char kIdExistsMessage[] = "Entity with the specified id already exists in the system.";
inline constexpr char kIdMissingMessage[] = "Entity with the specified id does not exist in the system.";
inline constexpr char kOwnerMissingMessage[] = "Owner resource does not exist";
inline constexpr char kIncorrectContainerRidMessage[] =
    "The container named in the request is not the one its x-ms-cosmos-intended-collection-rid names: it was "
    "deleted and created again. Refresh the container's properties.";
inline constexpr char kPreconditionMessage[] =
    "Operation cannot be performed because one of the specified precondition is not met.";
inline constexpr char kServerlessOffersMessage[] =
    "Reading or replacing offers is not supported for serverless accounts.";

}  // namespace cosmos::engine
