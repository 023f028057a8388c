// CI runs the suite with CI=true, and Ink then renders only the final frame of an app. The UI
// tests render the real dashboard into fake terminals and read the frames, exactly as a user's
// terminal would receive them, so the workers must not look like CI to Ink (`is-in-ci` treats
// "false" as not CI). Child processes started by tests get their own explicit environments.
process.env.CI = "false";
