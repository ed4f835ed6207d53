# Admin registrations for the game models arrive with the models.
