#!/bin/sh
# Stop: a reminder for the user, never for the model.
echo '{"systemMessage": "Reminder: run the test suite before you commit"}'
