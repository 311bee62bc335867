from montones import create_app

app = create_app()
